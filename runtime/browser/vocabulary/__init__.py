"""The browser's vocabulary, below every other layer: actions and their results, errors, the
document a read saw, what observing a page gives, and the session's policy. Plain data and the
rules on it; nothing here talks to Chromium."""
