"""Renderers: one module per output format, each a pure function from results to text."""
