"""The in-process llama.cpp judge, in its own package.

`judge.py` the backend (`LlamaCppJudge`), `decode.py` greedy decoding under a grammar,
`verdicts.py` and `texts.py` replies read from the logits, `token_evidence.py` conditional
PMI of claim tokens, `native.py` the one place that reaches past llama-cpp-python's public
API."""
