"""Cited answers, Pleias style: parse source-tagged inputs and `<ref name="ID">quote</ref>`
citations, and align quotes with their sources."""
