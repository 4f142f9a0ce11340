import hashlib
import io
from pathlib import Path

import pytest

from corpus import sources
from corpus.sources import BookFile, CorpusError


def _book(tmp_path: Path, text: bytes, sha: str | None = None) -> BookFile:
    (tmp_path / "en").mkdir(exist_ok=True)
    (tmp_path / "en" / "book.txt").write_bytes(text)
    return BookFile("en/book.txt", sha or hashlib.sha256(text).hexdigest(), "https://example.invalid/book.txt")


def test_verified_read_returns_text(tmp_path):
    book = _book(tmp_path, "Alice’s".encode())
    assert sources.read_verified(tmp_path, book) == "Alice’s"


def test_checksum_mismatch_names_the_file_and_both_hashes(tmp_path):
    book = _book(tmp_path, b"tampered", sha="0" * 64)
    with pytest.raises(CorpusError, match=r"book\.txt: sha256 is [0-9a-f]{64}, the manifest expects 0{64}"):
        sources.read_verified(tmp_path, book)


def test_missing_file_says_how_to_point_at_the_corpus(tmp_path):
    with pytest.raises(CorpusError, match="not found.*--corpus"):
        sources.read_verified(tmp_path, BookFile("zh/none.txt", "0" * 64, None))


def test_corpus_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv(sources.CORPUS_ENV, str(tmp_path / "env"))
    assert sources.corpus_dir(tmp_path / "opt") == (tmp_path / "opt").resolve()
    assert sources.corpus_dir() == (tmp_path / "env").resolve()
    monkeypatch.delenv(sources.CORPUS_ENV)
    assert sources.corpus_dir() == sources.DEFAULT_CORPUS.resolve()


def test_download_keeps_only_a_verified_copy(tmp_path):
    data = b"public domain text"
    book = BookFile("en/b.txt", hashlib.sha256(data).hexdigest(), "https://example.invalid/b.txt")
    fetched = sources.download(book, tmp_path, opener=lambda url, timeout: io.BytesIO(data))
    assert fetched.read_bytes() == data
    bad = BookFile("en/c.txt", "0" * 64, "https://example.invalid/c.txt")
    with pytest.raises(CorpusError, match="sha256"):
        sources.download(bad, tmp_path, opener=lambda url, timeout: io.BytesIO(data))
    assert not (tmp_path / "en" / "c.txt").exists()


def test_manifest_matches_the_shared_corpus():
    root = sources.corpus_dir()
    for lang in ("en", "zh"):
        texts = sources.read_book(lang, root)
        assert texts and all(texts)


def test_missing_file_says_only_the_english_book_can_be_downloaded(tmp_path):
    with pytest.raises(CorpusError) as caught:
        sources.read_verified(tmp_path, BookFile("zh/guxiang.txt", "0" * 64, None))
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'zh' / 'guxiang.txt'}: corpus file not found; ")
    assert "--download can fetch only the English book (en/alice.txt)" in message
    assert "\n" not in message


def test_an_offline_download_names_the_url_and_the_network(tmp_path):
    import urllib.error

    def offline(url, timeout):
        raise urllib.error.URLError(OSError(-2, "Name or service not known"))

    book = BookFile("en/b.txt", "0" * 64, "https://example.invalid/b.txt")
    with pytest.raises(CorpusError) as caught:
        sources.download(book, tmp_path, opener=offline)
    assert str(caught.value) == (
        "download https://example.invalid/b.txt: network unreachable ([Errno -2] Name or service not known); "
        "without a network, give the shared corpus with --corpus DIR"
    )


def test_a_refused_download_names_the_url_and_the_answer(tmp_path):
    import urllib.error

    def not_found(url, timeout):
        raise urllib.error.HTTPError(url, 404, "Not Found", {}, None)

    book = BookFile("en/b.txt", "0" * 64, "https://example.invalid/b.txt")
    with pytest.raises(CorpusError, match=r"^download https://example\.invalid/b\.txt: the server answered 404 Not Found$"):
        sources.download(book, tmp_path, opener=not_found)


def test_a_book_without_a_public_copy_is_not_downloaded(tmp_path):
    with pytest.raises(CorpusError, match="cannot be downloaded, only the English book can"):
        sources.download(BookFile("zh/x.txt", "0" * 64, None), tmp_path)


def test_with_download_the_chinese_books_still_come_from_the_corpus(tmp_path):
    english, chinese = sources.book_files("en")[0], sources.book_files("zh")[0]
    assert sources.book_root(english, tmp_path, download=True) == sources.DOWNLOAD_CACHE
    assert sources.book_root(chinese, tmp_path, download=True) == tmp_path
    assert sources.book_root(english, tmp_path, download=False) == tmp_path
