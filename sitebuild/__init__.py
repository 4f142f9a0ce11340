"""The build steps behind build.py: models, content, pages and assets, written atomically."""
