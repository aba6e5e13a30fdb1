"""Small local fake servers for tests."""
