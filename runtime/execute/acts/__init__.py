"""Acts and waits, the same for a plan's act and wait steps and an agent's tool calls: the
driver call each act makes (gestures.py), what it must show afterwards, by default an effect of
its own (expectations.py), and how a wait waits (waits.py). One way to act; the callers differ
only in what they record.
"""
