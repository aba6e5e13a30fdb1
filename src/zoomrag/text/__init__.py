"""Text utilities: sentence segmentation and token counting."""
