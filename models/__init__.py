"""Models: bases, deployed models and profiles (data and loaders)."""
