"""A tiny ViT image classifier saved to a folder: the stand-in model of the classifier and CLI tests."""

from __future__ import annotations

from pathlib import Path


def save_tiny_vit(folder: Path, labels: list[str], seed: int = 0) -> Path:
    """A 1-layer ViT with the given labels, saved as a from_pretrained folder (seconds to build, no download)."""
    import torch
    from transformers import ViTConfig, ViTForImageClassification, ViTImageProcessor

    torch.manual_seed(seed)
    config = ViTConfig(
        image_size=32,
        patch_size=8,
        num_channels=3,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        id2label=dict(enumerate(labels)),
        label2id={n: i for i, n in enumerate(labels)},
    )
    ViTForImageClassification(config).save_pretrained(folder)
    ViTImageProcessor(size={"height": 32, "width": 32}, image_mean=[0.5] * 3, image_std=[0.5] * 3).save_pretrained(
        folder
    )
    return folder
