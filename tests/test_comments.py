"""What a unit of source code embeds: its comments' words without their markers."""

from __future__ import annotations

from zoomrag.text.comments import as_read


def test_line_and_block_comment_markers_are_left_out():
    rust = ("    /// Adds an [argument].\n    ///\n    /// # Examples\n    //! Crate docs.\n"
            "    #[must_use]\n    pub fn arg(self) -> Self { // keep\n        *p = x * 2;\n    }\n")
    assert as_read(rust) == ("    Adds an [argument].\n    \n    # Examples\n    Crate docs.\n"
                             "    #[must_use]\n    pub fn arg(self) -> Self { // keep\n        *p = x * 2;\n    }\n")
    jsdoc = "/**\n * Send a response.\n *\n * @param {string} body\n */\nres.send = function (body) {}"
    assert as_read(jsdoc) == "\n Send a response.\n \n @param {string} body\n \nres.send = function (body) {}"


def test_text_without_comments_is_unchanged():
    python = "# a helper\ndef f(x):\n    return x ** 2\n"
    assert as_read(python) == python
    assert as_read("") == ""
