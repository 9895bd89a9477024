"""Build examples/pleias_sample.parquet: cited answers in the Pleias special-token format.

Five rows with known citation properties (verbatim, paraphrased, unknown source id,
repeated and too-short quotes, a refusal). Run: python examples/pleias_sample.py
"""

from __future__ import annotations

from pathlib import Path

Q = "<|query_start|>{}<|query_end|>"
S = "<|source_start|><|source_id_start|>{}<|source_id_end|>{}<|source_end|>"
R = "<|analysis_start|>{}<|analysis_end|><|answer_start|>{}<|answer_end|>"

ROWS = [
    ("p01", "When was the Eiffel Tower built?",
     [("1", "The Eiffel Tower was constructed from 1887 to 1889 as the centrepiece of the 1889 World's Fair."),
      ("2", "The tower is 330 metres tall and was the tallest man-made structure for 41 years.")],
     "The query asks for construction dates; source 1 gives them.",
     'The Eiffel Tower was built between 1887 and 1889 <ref name="1">The Eiffel Tower was constructed from '
     '1887 to 1889</ref>. It was then the tallest man-made structure <ref name="2">was the tallest man-made '
     'structure for 41 years</ref>.'),
    ("p02", "What is the boiling point of water at sea level?",
     [("a", "At standard atmospheric pressure, pure water boils at 100 degrees Celsius."),
      ("b", "At higher altitudes the boiling point is lower because the air pressure is lower.")],
     "Source a answers directly.",
     'Water boils at 100 degrees Celsius at sea level <ref name="a">pure water boils at about one hundred '
     'degrees at normal pressure</ref>.'),
    ("p03", "Who wrote Don Quixote?",
     [("s1", "Miguel de Cervantes published the first part of Don Quixote in 1605."),
      ("s2", "The second part appeared in 1615.")],
     "Source s1 names the author.",
     'Don Quixote was written by Miguel de Cervantes <ref name="s1">Miguel de Cervantes published the first '
     'part of Don Quixote</ref>. The novel was finished in 1615 <ref name="s7">The second part appeared in '
     '1615</ref>.'),
    ("p04", "What do pandas eat?",
     [("1", "Giant pandas eat bamboo almost exclusively; it makes up 99 percent of their diet."),
      ("2", "Pandas occasionally eat small rodents or carrion.")],
     "Both sources describe the diet.",
     'Pandas mostly eat bamboo <ref name="1">Giant pandas eat bamboo almost exclusively</ref>. Bamboo is '
     'nearly all of their food <ref name="1">Giant pandas eat bamboo almost exclusively</ref>. They '
     'sometimes eat meat <ref name="2">small rodents</ref>.'),
    ("p05", "What is the population of Mars?",
     [("1", "Mars is the fourth planet from the Sun and has a thin carbon dioxide atmosphere.")],
     "The source says nothing about inhabitants.",
     "The sources do not say anything about a population of Mars, so I cannot answer this question."),
]


def rows() -> list[dict[str, str]]:
    out = []
    for rid, query, sources, analysis, answer in ROWS:
        text = Q.format(query) + "".join(S.format(i, t) for i, t in sources)
        out.append({"id": rid, "text": text, "generated_response": R.format(analysis, answer)})
    return out


if __name__ == "__main__":
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(__file__).with_name("pleias_sample.parquet")
    pq.write_table(pa.Table.from_pylist(rows()), path)
    print(f"wrote {path}")
