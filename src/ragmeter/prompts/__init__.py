"""Judge prompts as data files: instruction + few-shot examples, per metric and language."""

from ragmeter.prompts.template import Example, PromptTemplate, builtin_prompt

__all__ = ["Example", "PromptTemplate", "builtin_prompt"]
