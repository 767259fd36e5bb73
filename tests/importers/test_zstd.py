"""The pure-Python Zstandard decoder: on every entry Inspect AI wrote zstd-compressed (each
checked against the zip's CRC-32 and size), on frames built by hand for each block type, and
on damaged data, which is always a ZstdError; and every accelerator present, held to it."""

import os
import random
import shutil
import struct
import unittest
import zipfile
import zlib

from proagents_bench.importers import zstd, zstd_tables
from proagents_bench.importers.inspect_eval import LOCAL_HEADER
from tests.importers.support import EXAMPLE_CASES, fixture, run_import
from tests.support import TempDir

LOG = fixture("baseline-zstd.eval")
IDS = ("--baseline-id", "baseline-v1", "--candidate-id", "candidate-v2")


def raw_entries():
    """(ZipInfo, compressed bytes) of every entry of Inspect's zstd log."""
    found = []
    with zipfile.ZipFile(LOG) as archive, open(LOG, "rb") as stream:
        for info in archive.infolist():
            stream.seek(info.header_offset)
            fields = LOCAL_HEADER.unpack(stream.read(LOCAL_HEADER.size))
            stream.seek(info.header_offset + LOCAL_HEADER.size + fields[-2] + fields[-1])
            found.append((info, stream.read(info.compress_size)))
    return found


def frame(*blocks, checksum=False):
    """A single-segment frame (1-byte content size) of the given (type, size, payload)."""
    descriptor = 0x20 | (0x04 if checksum else 0)
    size = sum(block_size for _kind, block_size, _payload in blocks) & 0xFF
    out = struct.pack("<IBB", zstd.FRAME_MAGIC, descriptor, size)
    for index, (kind, block_size, payload) in enumerate(blocks):
        last = 1 if index == len(blocks) - 1 else 0
        out += (last | kind << 1 | block_size << 3).to_bytes(3, "little") + payload
    return out + (b"\0\0\0\0" if checksum else b"")


class RealEntriesTests(unittest.TestCase):
    def test_every_entry_inspect_wrote_decodes_to_its_crc(self):
        entries = raw_entries()
        self.assertGreater(len(entries), 30)
        for info, raw in entries:
            with self.subTest(entry=info.filename):
                self.assertEqual(info.compress_type, 93)
                data = zstd.decompress_pure(raw, 1 << 24)
                self.assertEqual((len(data), zlib.crc32(data)), (info.file_size, info.CRC))

    def test_damaged_entries_are_zstd_errors_never_another_exception(self):
        # What decodes anyway is caught by the caller's CRC-32 check.
        generator = random.Random(11)
        _info, raw = max(raw_entries(), key=lambda item: item[0].file_size)
        errors = 0
        for _ in range(100):
            damaged = bytearray(raw)
            for _flip in range(generator.randint(1, 3)):
                damaged[generator.randrange(len(damaged))] ^= 1 << generator.randrange(8)
            if generator.random() < 0.3:
                damaged = damaged[:generator.randrange(len(damaged))]
            try:
                self.assertIsInstance(zstd.decompress_pure(bytes(damaged), 1 << 24), bytes)
            except zstd.ZstdError:
                errors += 1
        self.assertGreater(errors, 10)

    def test_the_output_limit_holds(self):
        info, raw = max(raw_entries(), key=lambda item: item[0].file_size)
        with self.assertRaises(zstd.ZstdError):
            zstd.decompress_pure(raw, info.file_size - 1)


class HandBuiltFrameTests(unittest.TestCase):
    def test_raw_and_rle_blocks(self):
        self.assertEqual(zstd.decompress_pure(frame((0, 5, b"hello")), 100), b"hello")
        self.assertEqual(zstd.decompress_pure(frame((1, 4, b"x")), 100), b"xxxx")
        self.assertEqual(zstd.decompress_pure(frame((0, 2, b"ab"), (1, 3, b"c")), 100), b"abccc")
        self.assertEqual(zstd.decompress_pure(frame((0, 1, b"a"), checksum=True), 100), b"a")

    def test_frames_in_a_row_and_skippable_frames(self):
        skippable = struct.pack("<II", zstd.SKIPPABLE_MAGIC | 3, 2) + b"zz"
        data = frame((0, 2, b"ab")) + skippable + frame((1, 2, b"c"))
        self.assertEqual(zstd.decompress_pure(data, 100), b"abcc")

    def test_malformed_frames_are_zstd_errors(self):
        good = frame((0, 5, b"hello"))
        dictionary = bytearray(good)
        dictionary[4] |= 0x01
        for bad in (b"", b"\x28\xb5", b"not zstd at all", good[:-2], bytes(dictionary),
                    frame((3, 1, b"x")), frame((0, 200000, b"x")), b"\x00" * 12):
            with self.subTest(bad=bad[:12]):
                with self.assertRaises(zstd.ZstdError):
                    zstd.decompress_pure(bad, 1 << 20)

    def test_the_limit_counts_every_block(self):
        with self.assertRaises(zstd.ZstdError):
            zstd.decompress_pure(frame((1, 100, b"x")), 99)

    def test_fse_tables_are_checked(self):
        with self.assertRaises(zstd.ZstdError):
            zstd_tables.read_fse_counts(b"\x0f\xff\xff\xff", zstd_tables.LL_MAX_LOG, 35)
        counts, log = zstd_tables.LL_DEFAULT
        table = zstd_tables.fse_table(counts, log)
        self.assertEqual(len(table), 1 << log)
        self.assertEqual(sorted({symbol for symbol, _bits, _base in table}),
                         list(range(len(counts))))


class DamagedLogTests(unittest.TestCase):
    """Inspect's zstd log with entries damaged: each damaged entry is its own error, and every
    other sample is read (so no case the log holds is said to be missing)."""

    def damaged(self, names):
        log = os.path.join(TempDir(self).path, "damaged.eval")
        shutil.copy(LOG, log)
        with open(log, "r+b") as stream:
            for info, raw in raw_entries():
                if info.filename in names:
                    stream.seek(info.header_offset)
                    fields = LOCAL_HEADER.unpack(stream.read(LOCAL_HEADER.size))
                    middle = (info.header_offset + LOCAL_HEADER.size + fields[-2] + fields[-1]
                              + len(raw) // 2)
                    stream.seek(middle)
                    stream.write(bytes([raw[len(raw) // 2] ^ 0xFF]))
        return log

    def test_one_damaged_entry_is_the_only_error(self):
        first = "samples/test-refund_epoch_1.json"  # the first test sample the log holds
        log = self.damaged([first])
        for extra in ((), ("--cases", EXAMPLE_CASES), ("--missing-as", "unknown")):
            with self.subTest(extra=extra):
                run, written = run_import(self, log, fixture("candidate.eval"), "--mapping",
                                          fixture("inspect_mapping.json"), *(IDS + extra))
                self.assertIsNone(written)
                self.assertEqual([(error["code"], error["file"]) for error in
                                  run.document["errors"]],
                                 [("import.zip_corrupt", log + ":" + first)])

    def test_every_damaged_entry_is_named_and_the_rest_read(self):
        names = ["samples/test-refund_epoch_1.json", "samples/test-privacy_epoch_3.json"]
        log = self.damaged(names)
        run, _written = run_import(self, fixture("candidate.eval"), log, "--mapping",
                                   fixture("inspect_mapping.json"), *IDS)
        self.assertEqual([(error["code"], error["file"]) for error in run.document["errors"]],
                         [("import.zip_corrupt", log + ":" + name) for name in names])


if __name__ == "__main__":
    unittest.main()


class DecoderTests(unittest.TestCase):
    """Every decoder present (the standard library's compression.zstd on Python 3.14+, the
    zstandard package where installed) gives the pure-Python decoder's bytes; the others are
    skipped, and the pure one is always tested."""

    def decoders(self):
        found = dict(zstd.DECODERS)
        self.assertIn("pure Python", found)
        self.assertIs(zstd.DECODERS[-1][1], zstd.decompress_pure)
        return found

    def test_every_decoder_present_gives_the_same_bytes(self):
        entries = raw_entries()
        for name in ("compression.zstd", "zstandard", "pure Python"):
            with self.subTest(decoder=name):
                decoder = self.decoders().get(name)
                if decoder is None:
                    self.skipTest("%s is not importable here" % name)
                for info, raw in entries:
                    data = decoder(raw, 1 << 24)
                    self.assertEqual(data, zstd.decompress_pure(raw, 1 << 24))
                    self.assertEqual((len(data), zlib.crc32(data)), (info.file_size, info.CRC))
                info, raw = max(entries, key=lambda item: item[0].file_size)
                with self.assertRaises(zstd.ZstdError):
                    decoder(raw, info.file_size - 1)
                with self.assertRaises(zstd.ZstdError):
                    decoder(b"", 100)
                with self.assertRaises(zstd.ZstdError):
                    decoder(b"\x00" * 16, 100)

    def test_decompress_uses_the_first_decoder_present(self):
        _info, raw = raw_entries()[3]
        self.assertEqual(zstd.decompress(raw, 1 << 24), zstd.DECODERS[0][1](raw, 1 << 24))

    def test_two_frames_and_a_skippable_frame_in_a_row(self):
        first = frame((0, 5, b"hello"))
        skippable = struct.pack("<II", zstd.SKIPPABLE_MAGIC, 3) + b"abc"
        for name, decoder in self.decoders().items():
            with self.subTest(decoder=name):
                self.assertEqual(decoder(first + skippable + frame((1, 3, b"!")), 100),
                                 b"hello!!!")
