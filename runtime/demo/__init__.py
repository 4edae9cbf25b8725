"""The bundled demo: a recipe (demo-quote.yaml) and a small loopback site it runs against."""

from pathlib import Path

from runtime.demo.site_server import DemoSite

DEMO_RECIPE = Path(__file__).parent / "demo-quote.yaml"

__all__ = ["DEMO_RECIPE", "DemoSite"]
