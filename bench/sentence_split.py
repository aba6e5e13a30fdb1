"""Sentence splitters compared on accuracy (hand-labelled cases) and speed (real corpora).

Run:  .venv/bin/python bench/sentence_split.py [--quick]

Candidates: zoomrag's own rules (zoomrag.text.sentences), pysbd, blingfire and sentencex, each
asked for exact character spans. The libraries get each case's language (their best case);
zoomrag gets none. Accuracy: a case is right when every sentence span matches the label after
trimming whitespace; boundary precision/recall count the starts of the 2nd, 3rd, ... sentences.
Speed: CPU seconds (time.process_time, robust on a shared machine), median of 3, over the
documents of ../shared/data/chroma_general and cmrc2018_trial, one call per document; MB are
UTF-8 megabytes. pysbd is timed on a 200 kB sample only (it runs at tens of kB/s).
The table printed at the end is the one in docs/text.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

Splitter = Callable[[str, str], list[tuple[int, int]]]

#: Boundary marker in the labelled cases; whitespace around it is not part of any sentence.
MARK = "␞"

#: (group, language, text with MARK where a new sentence begins). Conventions: a quotation followed by a
#: lower-case attribution stays in one sentence; closing quotes and brackets belong to the
#: sentence they close; a blank line always ends a sentence; a single line break ends one unless
#: the next line goes on in lower case; list items are sentences; a Japanese quotation followed
#: by と stays in its sentence.
CASES: list[tuple[str, str, str]] = [
    # -- English: abbreviations, titles, initials
    ("abbreviations", "en", "Dr. Smith arrived late. ␞He apologised to everyone."),
    ("abbreviations", "en", "Mr. Smith and Mrs. Jones met Ms. Lee yesterday. ␞They talked for hours."),
    ("abbreviations", "en", "We left at 5 p.m. ␞The bus was late."),
    ("abbreviations", "en", "The meeting is at 5 p.m. on Friday."),
    ("abbreviations", "en", "Use a tool, e.g. a hammer, to fix it. ␞Then paint it."),
    ("abbreviations", "en", "Some fruits, i.e. apples and pears, are sweet. ␞Others are sour."),
    ("abbreviations", "en", "The U.S. economy grew last year. ␞Exports rose."),
    ("abbreviations", "en", "He moved to the U.S. ␞It was 1990."),
    ("abbreviations", "en", "The U.S. Congress passed the bill."),
    ("abbreviations", "en", "Prof. Brown and Gen. Lee met at St. Paul's Cathedral."),
    ("abbreviations", "en", "The company, Acme Inc., reported profits. ␞Shares rose."),
    ("abbreviations", "en", "She works at Apple Inc. ␞Her brother works at Google."),
    ("abbreviations", "en", "The value was approx. 20 units."),
    ("abbreviations", "en", "Fig. 3 shows the results. ␞See also Table 2."),
    ("abbreviations", "en", "This is shown in Fig. 2a and Eq. 5 of the paper."),
    ("abbreviations", "en", "Vitamin D levels (ca. 30 ng/mL) were normal."),
    ("abbreviations", "en", "J. R. R. Tolkien wrote it. ␞It sold well."),
    ("abbreviations", "en", "The U.K. and the E.U. signed a deal in Jan. 2020."),
    ("abbreviations", "en", "We bought apples, pears, etc. ␞Then we went home."),
    ("abbreviations", "en", "We bought apples, pears, etc. and went home."),
    ("abbreviations", "en", "See p. 42 for details."),
    ("abbreviations", "en", "Smith et al. (2004) reported similar results."),
    ("abbreviations", "en", "Plasmodium falciparum (P. falciparum) causes malaria. ␞It is deadly."),
    ("abbreviations", "en", "He has a Ph.D. in physics. ␞She has an M.D. ␞They met at M.I.T. in Boston."),
    ("abbreviations", "en", "No. 5 is my favourite. ␞No. ␞It is not."),
    ("abbreviations", "en", "This is Mt. Everest at 3 a.m. in the morning."),
    ("abbreviations", "en", "He left the U.S.A. in 2010. ␞He never came back."),
    ("abbreviations", "en", "He served in the U.S. Army for years."),
    ("abbreviations", "en", "She works at Apple Inc. ␞Google is next door."),
    ("abbreviations", "en", "We need vitamin C. ␞It helps."),
    ("abbreviations", "en", "Fr . John arrived . ␞He sat down ."),
    ("abbreviations", "en", "Roe v. Wade was decided in 1973."),
    ("abbreviations", "en", "It was fixed for the haplotype BD. ␞Similar trees were found."),
    ("numbers, URLs", "en", "The phase runs from −π to π. ␞Profiles were then ordered."),
    # -- English: numbers, money, versions, URLs
    ("numbers, URLs", "en", "Pi is about 3.14 and e is about 2.718. ␞Both are irrational."),
    ("numbers, URLs", "en", "It cost $3.50 at the store. ␞That was cheap!"),
    ("numbers, URLs", "en", "Version 2.0.1 was released. ␞It fixed several bugs."),
    ("numbers, URLs", "en", "He scored 9.5/10. ␞Great result."),
    ("numbers, URLs", "en", "The temperature was -3.5 °C. ␞It snowed."),
    ("numbers, URLs", "en", "See section 2. ␞It explains more."),
    ("numbers, URLs", "en", "The vote was 5 to 4. ␞The bill passed."),
    ("numbers, URLs", "en", "It was 1990. ␞In 1991 things changed."),
    ("numbers, URLs", "en", "The results were significant (p < 0.05). ␞We discuss them below."),
    ("numbers, URLs", "en", "Visit https://example.com/a.b?x=1 for details. ␞Then sign up."),
    ("numbers, URLs", "en", "Email john.doe@example.org today. ␞Thanks in advance."),
    ("numbers, URLs", "en", "Call me at 555.123.4567 tomorrow. ␞The file report.final.pdf is big."),
    ("numbers, URLs", "en", "They were born in the 1990s. ␞Their parents in the '60s."),
    ("numbers, URLs", "en", "as of december 31, 2017, the company had credits. ␞the company had losses."),
    # -- English: quotes, brackets, ellipses, ! and ?
    ("quotes, ! ? …", "en", "\"Go.\" he said."),
    ("quotes, ! ? …", "en", "\"Go,\" he said. ␞\"Now!\""),
    ("quotes, ! ? …", "en", "She asked, \"Are you coming?\" ␞He nodded."),
    ("quotes, ! ? …", "en", "'Stop!' she cried. ␞Nobody did."),
    ("quotes, ! ? …", "en", "“Where are you?” she asked. ␞“Here,” he said."),
    ("quotes, ! ? …", "en", "What? ␞No way! ␞Really?!"),
    ("quotes, ! ? …", "en", "He said (quietly) that it was fine. ␞(The rest was lost.) ␞Then he left."),
    ("quotes, ! ? …", "en", "Wait... ␞What was that?"),
    ("quotes, ! ? …", "en", "I was thinking... maybe not."),
    ("quotes, ! ? …", "en", "He paused… ␞Then he spoke."),
    ("quotes, ! ? …", "en", "Hello!! ␞How are you?? ␞Fine!!!"),
    ("quotes, ! ? …", "en", "He called it \" a great game . \"\n␞It sold well ."),
    ("quotes, ! ? …", "en", "He said: 'I don't know.' ␞Then he left."),
    ("quotes, ! ? …", "en", "She turned to him, \"This is great.\" ␞She held the book out."),
    # -- Line structure
    ("lines", "en", "First paragraph without a full stop\n\n␞Second paragraph."),
    ("lines", "en", "Introduction\n␞The study examines sleep."),
    ("lines", "en", "Steps:\n␞1. Open the lid.\n␞2. Pour the water.\n␞3. Close it."),
    ("lines", "en", "- item one\n␞- item two\n␞- item three"),
    ("lines", "en", ("This sentence is hard-wrapped at a fixed width so that it\n"
                     "continues on the next line. ␞Then another starts.")),
    ("lines", "en", "Name: John\n␞Age: 42"),
    ("lines", "en", "| a | b |\n␞| 1 | 2 |"),
    ("lines", "en", "Q: What is it? ␞A: A test."),
    ("lines", "en", "1) First point.\n␞2) Second point."),
    ("lines", "en", "Dear John,\n\n␞Thanks for the letter.\n\n␞Best,\n␞Mary"),
    ("lines", "en", ("OpenSSH was forked from the original free release by a team led by\n"
                     "Theo de Raadt and Markus Friedl. ␞It is widely used.")),
    ("lines", "de", ("Wenn Sie das, was Sie suchen, in dieser FAQ nicht finden, werfen\n"
                     "Sie einen Blick in Abschnitt 12.1. ␞Dort steht mehr.")),
    # -- Other languages: their abbreviations, dates and stops
    ("other languages", "de", "Das gilt z. B. für Pakete wie gcc. ␞Danach folgt mehr."),
    ("other languages", "de", "Siehe Abschnitt 12.1 bzw. Kap. 3 für Details. ␞Dann geht es weiter."),
    ("other languages", "de", "Am 3. Oktober 2024 erschien Debian 12.7. ␞Es behob viele Fehler."),
    ("other languages", "de", "Die Datei liegt in /etc, d. h. im Systemverzeichnis. ␞Sie ist klein."),
    ("other languages", "de", "Nutzen Sie z. B. Paket A. ␞Wir sind fertig."),
    ("other languages", "de", "Das kostet ca. 5 Euro, vgl. Tabelle 2. ␞Der Preis steigt."),
    ("other languages", "de", "Er wohnt in der Hauptstr. 5 in Berlin. ␞Sie auch."),
    ("other languages", "fr", "Voir p. ex. la section 3. ␞Ensuite, M. Dupont arrive."),
    ("other languages", "fr", "Il a été. ␞Ensuite il est parti."),
    ("other languages", "fr", "Mme Durand habite à Paris, env. 3 km du centre. ␞Elle travaille."),
    ("other languages", "fr", "« Partez ! » dit-il. ␞Personne ne bougea."),
    ("other languages", "es", "¿Cómo instalo paquetes? ␞Use apt. ␞El Sr. García lo dijo."),
    ("other languages", "es", "Vea la pág. 12, p. ej. el cuadro 3. ␞Después siga."),
    ("other languages", "es", "¡Qué bien! ␞Lo logramos."),
    ("other languages", "it", "Vedi pag. 4, ecc. per i dettagli. ␞Poi continua."),
    ("other languages", "ru", "Это т. е. важно, см. гл. 5. ␞Далее текст."),
    ("other languages", "ru", "Это так. ␞Далее текст! ␞Правда? ␞Да."),
    ("other languages", "ru", "Яблоки, груши и т. д. ␞Потом мы пошли домой."),
    ("other languages", "ru", "Он родился в 1990 г. в Москве. ␞Потом переехал."),
    ("other languages", "hi", "यह एक वाक्य है। ␞यह दूसरा वाक्य है। ␞क्या यह तीसरा है?"),
    ("other languages", "ar", "هذه جملة. ␞هل هذه جملة؟ ␞نعم هي."),
    ("other languages", "ur", "یہ پہلا جملہ ہے۔ ␞یہ دوسرا جملہ ہے۔"),
    ("other languages", "nl", "Gebruik bijv. apt of dpkg. ␞Daarna is het klaar."),
    ("other languages", "pt", "O Sr. Silva chegou. ␞Ele estava cansado."),
    # -- Chinese, Japanese, Korean
    ("CJK", "zh", "这是第一句。␞这是第二句！␞真的吗？"),
    ("CJK", "zh", "他说：“我们走吧。”␞然后就离开了。"),
    ("CJK", "zh", "他问：“你好吗？”␞我说：“很好。”"),
    ("CJK", "zh", "价格是3.5元。␞很便宜。"),
    ("CJK", "zh", "第一，准备材料；␞第二，开始制作。"),
    ("CJK", "zh", "这是中文句子。␞This is English. ␞混合的句子也可以。"),
    ("CJK", "zh", "我用iPhone 12拍照。␞效果很好！"),
    ("CJK", "zh", "ＡＢＣ公司成立于２０２０年。␞总部在北京。"),
    ("CJK", "zh", "他犹豫了一下……然后走了。"),
    ("CJK", "zh", "真的吗？！␞太好了。"),
    ("CJK", "zh", "（这是括号里的句子。）␞下一句。"),
    ("CJK", "zh", "今天天气很好.␞我们去公园吧!"),
    ("CJK", "zh", "第一段。\n␞第二段没有句号\n␞第三段"),
    ("CJK", "zh", "中国的GDP增长了6.5%。␞这是好消息。"),
    ("CJK", "zh", "美国总统Mr. Smith访问了北京。␞他很高兴。"),
    ("CJK", "ja", "「行こう。」␞彼は言った。"),
    ("CJK", "ja", "『本当ですか？』と彼女は聞いた。"),
    ("CJK", "ja", "日本語の文です。␞二つ目の文です！␞三つ目？"),
    ("CJK", "ja", "東京は日本の首都です。␞人口は約1400万人です。"),
    ("CJK", "ko", "안녕하세요. ␞반갑습니다."),]


def labelled(case: str) -> tuple[str, list[tuple[int, int]]]:
    """The text of a case and its gold sentence spans (trimmed)."""
    text = case.replace(MARK, "")
    cuts, pos = [0], 0
    for piece in case.split(MARK)[:-1]:
        pos += len(piece)
        cuts.append(pos)
    cuts.append(len(text))
    return text, trim(text, list(pairwise(cuts)))


def trim(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            out.append((s, e))
    return out


# -- the candidates: (text, language) -> spans --------------------------------------------------
def zoomrag_split(text: str, lang: str) -> list[tuple[int, int]]:
    from zoomrag.text.sentences import sentence_spans

    return sentence_spans(text)


_PYSBD: dict[str, object] = {}


def pysbd_split(text: str, lang: str) -> list[tuple[int, int]]:
    import pysbd

    seg = _PYSBD.get(lang)
    if seg is None:
        try:
            seg = pysbd.Segmenter(language=lang, clean=False, char_span=True)
        except ValueError:  # a language pysbd has no rules for (Korean, Portuguese): its English ones
            seg = pysbd.Segmenter(language="en", clean=False, char_span=True)
        _PYSBD[lang] = seg
    return trim(text, [(s.start, s.end) for s in seg.segment(text)])


def blingfire_split(text: str, lang: str) -> list[tuple[int, int]]:
    import blingfire

    _, offsets = blingfire.text_to_sentences_and_offsets(text)
    return trim(text, offsets)


def sentencex_split(text: str, lang: str) -> list[tuple[int, int]]:
    import sentencex

    return trim(text, [(b["start_index"], b["end_index"])
                       for b in sentencex.get_sentence_boundaries(lang, text)])


CANDIDATES: dict[str, Splitter] = {
    "zoomrag": zoomrag_split,
    "pysbd": pysbd_split,
    "blingfire": blingfire_split,
    "sentencex": sentencex_split,
}


# -- measurement ---------------------------------------------------------------------------------
@dataclass
class Score:
    right: int = 0
    cases: int = 0
    true_cuts: int = 0
    predicted_cuts: int = 0
    gold_cuts: int = 0

    @property
    def share(self) -> float:
        return self.right / max(self.cases, 1)

    @property
    def precision(self) -> float:
        return self.true_cuts / max(self.predicted_cuts, 1)

    @property
    def recall(self) -> float:
        return self.true_cuts / max(self.gold_cuts, 1)


def accuracy(split: Splitter, verbose: bool = False) -> dict[str, Score]:
    """Scores per group of cases, and over all of them (key ``"all"``)."""
    scores: dict[str, Score] = {"all": Score()}
    for group, lang, case in CASES:
        text, gold = labelled(case)
        try:
            pred = split(text, lang)
        except Exception as e:  # noqa: BLE001 - any library crash counts as a miss
            pred = [(0, len(text))]
            if verbose:
                print(f"  crash {e!r} on {text!r}")
        g = {s for s, _ in gold[1:]}
        p = {s for s, _ in pred[1:]}
        for score in (scores["all"], scores.setdefault(group, Score())):
            score.cases += 1
            score.right += pred == gold
            score.true_cuts += len(g & p)
            score.predicted_cuts += len(p)
            score.gold_cuts += len(g)
        if verbose and pred != gold:
            print(f"  miss {[text[s:e] for s, e in pred]}")
    return scores


def corpus(name: str) -> list[str]:
    path = Path(__file__).resolve().parents[2] / "shared" / "data" / name / "corpus.jsonl"
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f]


def speed(split: Splitter, docs: list[str], lang: str, limit: int | None = None,
          repeats: int = 3) -> float:
    """UTF-8 MB per CPU second, median of ``repeats`` runs."""
    if limit is not None:
        docs = _sample(docs, limit)
    mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    times = []
    for _ in range(repeats):
        t = time.process_time()
        for d in docs:
            split(d, lang)
        times.append(time.process_time() - t)
    return mb / max(statistics.median(times), 1e-9)


def _sample(docs: list[str], limit: int) -> list[str]:
    out, total = [], 0
    for d in docs:
        if total >= limit:
            break
        out.append(d[: limit - total])
        total += len(out[-1])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="accuracy only, no speed runs")
    ap.add_argument("--verbose", action="store_true", help="print every missed case")
    ap.add_argument("--only", help="one candidate by name")
    args = ap.parse_args(argv)

    general, chinese = corpus("chroma_general"), corpus("cmrc2018_trial")
    names = [args.only] if args.only else list(CANDIDATES)
    groups = list(dict.fromkeys(g for g, _, _ in CASES))
    rows, by_group = [], []
    for name in names:
        split = CANDIDATES[name]
        try:
            split("Warm up. Once.", "en")
        except ImportError:
            print(f"{name}: not installed, skipped", file=sys.stderr)
            continue
        if args.verbose:
            print(name)
        scores = accuracy(split, verbose=args.verbose)
        total = scores["all"]
        row = [name, f"{total.right} ({total.share:.0%})", f"{total.precision:.2f}", f"{total.recall:.2f}"]
        if not args.quick:
            limit = 200_000 if name == "pysbd" else None
            row.append(f"{speed(split, general, 'en', limit):.2f}" if general else "-")
            row.append(f"{speed(split, chinese, 'zh', limit):.2f}" if chinese else "-")
        rows.append(row)
        by_group.append([name] + [f"{scores[g].right}/{scores[g].cases}" for g in groups])

    head = ["splitter", f"cases right (of {len(CASES)})", "boundary precision", "boundary recall"]
    if not args.quick:
        head += ["MB/s chroma_general", "MB/s cmrc2018_trial"]
    _table(head, rows)
    print()
    _table(["splitter", *groups], by_group)
    return 0


def _table(head: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(" --- " for _ in head) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    sys.exit(main())
