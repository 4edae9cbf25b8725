"""Reading the page for a step, honestly, with the run context: which document a read came from and
whether it was validated (provenance.py), a page path the network policy refused (refused_path.py),
and a fallback search page's results (search_results.py).
"""
