"""Find, verify and tokenise the public-domain books (build time only); sim/counting.py counts them."""
