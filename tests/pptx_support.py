"""PowerPoint decks made for the tests with python-pptx (the optional ``pptx`` extra)."""

from __future__ import annotations

import io
from typing import Any


def make_pptx(slides: list[dict[str, Any]], title: str | None = None) -> bytes:
    """A deck of ``slides``, each a dict of: ``title``; ``bullets``, ``(level, text)`` in the
    body placeholder; ``box``, a text box's paragraphs, placed above the body; ``table``, rows
    of cell texts; ``picture``, a picture's alternative text; ``chart``, ``(title, categories,
    {series: values})`` of a column chart; ``notes``, the speaker notes.
    ``title`` is the deck's core title."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    for spec in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1 if "bullets" in spec else 5])
        if spec.get("title"):
            slide.shapes.title.text = spec["title"]
        if "bullets" in spec:
            frame = slide.placeholders[1].text_frame
            for i, (level, text) in enumerate(spec["bullets"]):
                para = frame.paragraphs[0] if i == 0 else frame.add_paragraph()
                para.text, para.level = text, level
        if "box" in spec:
            frame = slide.shapes.add_textbox(Inches(1), Inches(1.4), Inches(6), Inches(1)).text_frame
            for i, text in enumerate(spec["box"]):
                (frame.paragraphs[0] if i == 0 else frame.add_paragraph()).text = text
        if "table" in spec:
            rows = spec["table"]
            table = slide.shapes.add_table(len(rows), len(rows[0]), Inches(1), Inches(5), Inches(6), Inches(1)).table
            for r, row in enumerate(rows):
                for c, text in enumerate(row):
                    table.cell(r, c).text = text
        if "picture" in spec:
            from PIL import Image

            png = io.BytesIO()
            Image.new("RGB", (4, 4), (200, 0, 0)).save(png, format="PNG")
            png.seek(0)
            picture = slide.shapes.add_picture(png, Inches(1), Inches(6))
            next(el for el in picture.element.iter() if el.tag.endswith("}cNvPr")).set("descr", spec["picture"])
        if "chart" in spec:
            from pptx.chart.data import CategoryChartData
            from pptx.enum.chart import XL_CHART_TYPE

            name, categories, series = spec["chart"]
            data = CategoryChartData()
            data.categories = categories
            for label, values in series.items():
                data.add_series(label, values)
            chart = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6),
                                           Inches(3), data).chart
            chart.has_title = True
            chart.chart_title.text_frame.text = name
        if "notes" in spec:
            slide.notes_slide.notes_text_frame.text = spec["notes"]
    if title:
        deck.core_properties.title = title
    buf = io.BytesIO()
    deck.save(buf)
    return buf.getvalue()
