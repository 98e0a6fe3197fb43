"""The synthetic chat models: request checks, answer writing, tokens, streaming."""
