"""Perl's POD read as perldoc shows it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_rendered_blocks

from zoomrag.load import read_text
from zoomrag.load.base import detect_format

POD = """=encoding utf8

=head1 NAME

Test::Tutorial - A tutorial about writing really basic tests

=head1 DESCRIPTION

Your basic unit of testing is the I<ok>.  L<Test::Harness> reads
C<< $x->ok >> results; see L<the plan|Test::More/"Plan">, L<perlfunc/open> and E<lt>hereE<gt>.X<testing>

    use Test::Simple tests => 1;

    ok( 1 + 1 == 2 );

=begin html

<p>Only for HTML.</p>

=end html

=head2 Functions

=over 4

=item ok EXPR

Passes when EXPR is true.

=item *

A point.

=back

=for comment Not printed.

=cut

sub code_after_cut { 1 }
"""


def test_pod_reads_as_perldoc_shows_it():
    doc = read_text(POD, format="pod", source="Tutorial.pod")
    assert doc.text == (
        "# Test::Tutorial — A tutorial about writing really basic tests\n\n"
        "## DESCRIPTION\n\n"
        "Your basic unit of testing is the ok. Test::Harness reads $x->ok results; see the plan, "
        "“open” in perlfunc and <here>.\n\n"
        "```\nuse Test::Simple tests => 1;\n\nok( 1 + 1 == 2 );\n```\n\n"
        "### Functions\n\n"
        "ok EXPR: Passes when EXPR is true.\n\n"
        "- A point.")
    assert doc.format == "pod" and doc.metadata == {"title": "Test::Tutorial — A tutorial about writing really basic tests"}
    check_rendered_blocks(doc)


def test_a_pod_file_with_no_command_is_plain_text():
    doc = read_text("Just words.\n", format="pod", source="x.pod")
    assert doc.format == "text" and doc.text == "Just words.\n"


def test_pod_files_are_found_by_extension():
    assert detect_format(Path("perlfunc.pod")) == "pod"


_PARAS = st.lists(st.one_of(
    st.sampled_from(["=head1 NAME", "=head2 X", "=over 4", "=item *", "=item word", "=back", "=cut", "=pod",
                     "=begin html", "=end html", "=for text shown", "    code", "B<C<x>>", "C<< a >b >>",
                     "E<gt>", "L<a|b>", "L<x/\"y\">", "X<i>", "x - y"]),
    st.text(alphabet="ab <>=CBI|/\"\n", max_size=15)), max_size=25)


@settings(max_examples=300, deadline=None)
@given(_PARAS)
def test_any_pod_reads_to_blocks_inside_its_text(paras):
    text = "\n\n".join(paras)
    doc = read_text(text, format="pod", source="x.pod")
    if doc.format == "pod":
        check_rendered_blocks(doc)
    else:
        assert doc.text == text
