# docs/cluster.md: build from the repository root: docker build -f docs/examples/cluster.Dockerfile .
# An image with the project and the editions' environments installed: every node runs the same code,
# no working_dir upload. Ray and Python versions must match the driver's exactly.
FROM rayproject/ray:2.60.0-py311
WORKDIR /home/ray/pcg
COPY --chown=ray:users . .
RUN pip install --no-cache-dir torch==2.13.0 \
 && pip install --no-cache-dir -e ".[cluster]"
