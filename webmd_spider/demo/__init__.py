"""A bundled demo website and the small static-site HTTP server that serves it."""
