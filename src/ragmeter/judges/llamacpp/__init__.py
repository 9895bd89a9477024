"""The in-process llama.cpp judge, in its own package.

`judge.py` the backend (`LlamaCppJudge`: loading, chat templates, one request at a time),
`prompt.py` a prompt evaluated (shared prefix restored, fresh state per request),
`decode.py` greedy decoding under a grammar, `verdicts.py` and `texts.py` replies read from
the logits, `token_evidence.py` conditional PMI of claim tokens, `native.py` the one place
that reaches past llama-cpp-python's public API."""
