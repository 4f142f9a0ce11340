"""Turn the public-domain books into n-gram count models (build time only)."""
