"""`ragmeter report RUN [RUN_B] --out report.html`: one self-contained HTML file.

write.py writes it, data.py gathers what the page shows, charts.py draws the SVG pictures,
page.py assembles the page with static/report.js (rows: search, sort, filter, pages,
drill-down) and report.css.
"""

from ragmeter.report.write import write_report

__all__ = ["write_report"]
