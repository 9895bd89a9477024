"""The RAG under test: answer a test set with your pipeline or ragmeter's baseline, and
compare RAG configurations.

run.py answers a test set end to end (`answer`, `aanswer`, `build_index`), index.py builds
and loads the baseline's FAISS index, prompt.py is its reader prompt, baseline.py retrieves
and generates, contract.py is what any RAG returns, targets.py resolves `--rag
module:function` or an HTTP URL, adapters.py wraps LangChain and LlamaIndex, answer.py runs
a RAG over a test set's rows, generate.py is the Pleias generator, experiment.py runs a grid
of baselines.
"""

from ragmeter.rag.answer import AnswerRun
from ragmeter.rag.contract import Context, RAGAnswer
from ragmeter.rag.run import aanswer, answer, build_index

__all__ = ["AnswerRun", "Context", "RAGAnswer", "aanswer", "answer", "build_index"]
