"""Reading what was submitted: zips unpacked, the files of a submission folder that count."""
