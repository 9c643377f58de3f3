"""porter: a CUDA-to-HIP porting assistant (scan, translate, kernel analysis, migration-effort assessment)."""

__version__ = "0.1.0"
