"""A Zstandard decoder (RFC 8878) in pure Python, for the entries of Inspect AI's ``.eval``
logs: Inspect writes them zstd-compressed (zip method 93), which Python's ``zipfile`` reads
only from Python 3.14 on.

It decodes what the format allows but dictionaries: frames (several in a row, and skippable
frames), raw, RLE and compressed blocks, raw, RLE, Huffman and treeless literals (one or four
streams; weights direct or FSE-compressed), sequences with predefined, RLE, FSE and repeated
tables, and repeat offsets. The frame's content checksum (XXH64) is not verified: the zip's
CRC-32 of the whole entry is, by the caller. Its work is bounded: the output may not exceed
the caller's limit, a block's size is at most :data:`MAX_BLOCK_BYTES`, and every table and
count is checked against the format's bounds before it is used; anything malformed raises
:class:`ZstdError`, never another exception.

Speed, in pure Python: the bitstreams are read through a window (an int of up to 64 bytes of
the stream, refilled once per sequence or per few dozen literals), so a field is a shift and
a mask, not a call; the FSE tables are split into columns, and every table a block describes
is kept for the next block that describes it again (Inspect's entries repeat a few tables;
the tables are :mod:`.zstd_tables`'). About three times the speed of a bit reader with a call
per field (``bench import --template-log`` on a zstd log prints it). Where present,
``compression.zstd`` (Python 3.14+) or the ``zstandard`` package decode instead
(:data:`DECODERS`), with the same bytes.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from .zstd_tables import (DEFAULT_TABLES, LL_CODES, LL_DEFAULT, LL_MAX_LOG, MASKS,
                          MAX_OFFSET_CODE, ML_CODES, ML_DEFAULT, ML_MAX_LOG, OF_DEFAULT,
                          OF_MAX_LOG, PAD_BITS, WINDOW_BYTES, HuffmanColumns, Prepared,
                          fse_prepared, huffman_columns, huffman_stream, padded_stream,
                          prepared, read_fse_counts)
# The decoder's one error, raised by its tables too.
from .zstd_tables import ZstdError as ZstdError

FRAME_MAGIC = 0xFD2FB528
SKIPPABLE_MASK = 0xFFFFFFF0
SKIPPABLE_MAGIC = 0x184D2A50
MAX_BLOCK_BYTES = 128 * 1024
# The most bits one sequence reads: an offset (31), a match length (16) and a literal length
# (16) of extra bits, and the three states (9, 9 and 8 bits).
SEQUENCE_BITS = 96


# Optional accelerators, never required: the standard library's ``compression.zstd``
# (Python 3.14+) and the ``zstandard`` package, where importable. Each gives the same bytes
# as the pure-Python decoder (the tests hold every one present to it, entry by entry).
# Neither is there for the type checker (Python 3.9 has no compression.zstd; zstandard is
# not installed with it), so each is typed Any and may be None: the ignores say so.
try:
    from compression import zstd as _stdlib_zstd  # type: ignore[import-not-found]
except ImportError:  # before Python 3.14
    _stdlib_zstd = None
try:
    import zstandard as _zstandard  # type: ignore[import-not-found]
except ImportError:
    _zstandard = None


def _decompress_stdlib(data: bytes, max_output: int) -> bytes:
    """``compression.zstd``, frame after frame, never more than ``max_output`` + 1 bytes."""
    out = bytearray()
    rest = data
    try:
        while rest:
            decompressor = _stdlib_zstd.ZstdDecompressor()
            out += decompressor.decompress(rest, max_length=max_output + 1 - len(out))
            if len(out) > max_output:
                raise ZstdError("more than %d bytes of output" % max_output)
            if not decompressor.eof:
                raise ZstdError("truncated frame")
            rest = decompressor.unused_data
    except _stdlib_zstd.ZstdError as problem:
        raise ZstdError("corrupt zstd data (%s)" % problem)
    if not data:
        raise ZstdError("no zstd frame")
    return bytes(out)


def _decompress_zstandard(data: bytes, max_output: int) -> bytes:
    """The ``zstandard`` package, across frames, never more than ``max_output`` + 1 bytes."""
    if not data:
        raise ZstdError("no zstd frame")
    chunks = []
    size = 0
    try:
        reader = _zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
        while size <= max_output:
            chunk = reader.read(max_output + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except _zstandard.ZstdError as problem:
        raise ZstdError("corrupt zstd data (%s)" % problem)
    if size > max_output:
        raise ZstdError("more than %d bytes of output" % max_output)
    return b"".join(chunks)


# Every decoder present, by name, the pure-Python one always; ``decompress`` uses the first.
DECODERS = [(name, function) for name, function, module in (
    ("compression.zstd", _decompress_stdlib, _stdlib_zstd),
    ("zstandard", _decompress_zstandard, _zstandard)) if module is not None]


def decompress(data: bytes, max_output: int) -> bytes:
    """Every frame of ``data``, decoded (by an accelerator when one is present, else by
    :func:`decompress_pure`); ZstdError for anything malformed or for more than
    ``max_output`` bytes of output."""
    return DECODERS[0][1](data, max_output)


def decompress_pure(data: bytes, max_output: int) -> bytes:
    """Every frame of ``data``, decoded by this module; ZstdError for anything malformed or
    for more than ``max_output`` bytes of output."""
    try:
        return _decompress(memoryview(data).tobytes(), max_output)
    except ZstdError:
        raise
    except (IndexError, ValueError, KeyError, OverflowError) as problem:
        raise ZstdError("corrupt zstd data (%s)" % type(problem).__name__)


def _decompress(data: bytes, max_output: int) -> bytes:
    out = bytearray()
    position = 0
    if not data:
        raise ZstdError("no zstd frame")
    while position < len(data):
        if len(data) - position < 4:
            raise ZstdError("truncated frame magic number")
        magic = int.from_bytes(data[position:position + 4], "little")
        position += 4
        if magic & SKIPPABLE_MASK == SKIPPABLE_MAGIC:
            size = int.from_bytes(data[position:position + 4], "little")
            position += 4 + size
            if position > len(data):
                raise ZstdError("truncated skippable frame")
            continue
        if magic != FRAME_MAGIC:
            raise ZstdError("not a zstd frame (magic number 0x%08X)" % magic)
        position = Frame(data, position, out, max_output).decode()
    return bytes(out)


class Frame:
    """One frame: its header, its blocks, and the state blocks share (repeat offsets,
    the last Huffman and FSE tables)."""

    def __init__(self, data: bytes, position: int, out: bytearray, max_output: int) -> None:
        self.data = data
        self.position = position
        self.out = out
        self.max_output = max_output
        self.repeats = [1, 4, 8]
        self.huffman: Optional[HuffmanColumns] = None
        self.tables: List[Optional[Prepared]] = [None, None, None]  # LL, OF, ML

    def take(self, count: int) -> bytes:
        if count < 0 or self.position + count > len(self.data):
            raise ZstdError("truncated frame")
        chunk = self.data[self.position:self.position + count]
        self.position += count
        return chunk

    def decode(self) -> int:
        descriptor = self.take(1)[0]
        size_flag, single_segment = descriptor >> 6, (descriptor >> 5) & 1
        if descriptor & 0x08:
            raise ZstdError("reserved bit set in the frame header")
        checksum = (descriptor >> 2) & 1
        dictionary_bytes = (0, 1, 2, 4)[descriptor & 3]
        if not single_segment:
            self.take(1)  # the window descriptor: the whole output stays addressable here
        if dictionary_bytes and int.from_bytes(self.take(dictionary_bytes), "little"):
            raise ZstdError("a zstd frame with a dictionary cannot be decoded")
        self.take((1 if single_segment else 0, 2, 4, 8)[size_flag])
        while True:
            header = int.from_bytes(self.take(3), "little")
            last, kind, size = header & 1, (header >> 1) & 3, header >> 3
            if size > MAX_BLOCK_BYTES:
                raise ZstdError("block of %d bytes, more than the format's %d" % (
                    size, MAX_BLOCK_BYTES))
            if kind == 0:
                self.emit(self.take(size))
            elif kind == 1:
                self.emit(self.take(1) * size)
            elif kind == 2:
                self.block(self.take(size))
            else:
                raise ZstdError("reserved block type")
            if last:
                break
        if checksum:
            self.take(4)
        return self.position

    def emit(self, chunk: bytes) -> None:
        if len(self.out) + len(chunk) > self.max_output:
            raise ZstdError("more than %d bytes of output" % self.max_output)
        self.out += chunk

    # -- a compressed block ------------------------------------------------------------

    def block(self, block: bytes) -> None:
        literals, position = self.literals(block)
        self.sequences(block, position, literals)

    def literals(self, block: bytes) -> Tuple[bytes, int]:
        first = block[0]
        kind, size_format = first & 3, (first >> 2) & 3
        if kind in (0, 1):
            if size_format in (0, 2):
                size, header = first >> 3, 1
            elif size_format == 1:
                size, header = (first >> 4) + (block[1] << 4), 2
            else:
                size, header = (first >> 4) + (block[1] << 4) + (block[2] << 12), 3
            if size > MAX_BLOCK_BYTES:
                raise ZstdError("literals larger than a block")
            if kind == 0:
                literals = block[header:header + size]
                if len(literals) != size:
                    raise ZstdError("truncated raw literals")
                return literals, header + size
            return block[header:header + 1] * size, header + 1
        header, bits = ((3, 10), (3, 10), (4, 14), (5, 18))[size_format]
        streams = 1 if size_format == 0 else 4
        value = int.from_bytes(block[:header], "little")
        mask = (1 << bits) - 1
        size, compressed = (value >> 4) & mask, (value >> (4 + bits)) & mask
        if size > MAX_BLOCK_BYTES or header + compressed > len(block):
            raise ZstdError("literals section larger than its block")
        section = block[header:header + compressed]
        if kind == 2:
            self.huffman, used = huffman_columns(section)
            section = section[used:]
        elif self.huffman is None:
            raise ZstdError("treeless literals without a previous Huffman table")
        table, max_bits = self.huffman
        if streams == 1:
            literals = huffman_stream(section, size, table, max_bits)
        else:
            sizes = [int.from_bytes(section[index:index + 2], "little") for index in (0, 2, 4)]
            sizes.append(len(section) - 6 - sum(sizes))
            if sizes[3] < 0:
                raise ZstdError("bad Huffman jump table")
            part = (size + 3) // 4
            pieces, start = [], 6
            for index, length in enumerate(sizes):
                count = part if index < 3 else size - 3 * part
                if count < 0:
                    raise ZstdError("bad literal stream sizes")
                pieces.append(huffman_stream(section[start:start + length], count, table,
                                             max_bits))
                start += length
            literals = b"".join(pieces)
        return literals, header + compressed

    def sequences(self, block: bytes, position: int, literals: bytes) -> None:
        count = block[position] if position < len(block) else 0
        position += 1
        if count == 0:
            if position < len(block):
                raise ZstdError("data after an empty sequences section")
            self.emit(literals)
            return
        if count == 255:
            count = block[position] + (block[position + 1] << 8) + 0x7F00
            position += 2
        elif count >= 128:
            count = ((count - 128) << 8) + block[position]
            position += 1
        modes = block[position]
        position += 1
        if modes & 3:
            raise ZstdError("reserved bits set in the sequence modes")
        chosen: List[Prepared] = []
        for slot, (mode, default, max_log, max_symbol, codes) in enumerate((
                (modes >> 6, LL_DEFAULT, LL_MAX_LOG, len(LL_CODES) - 1, LL_CODES),
                ((modes >> 4) & 3, OF_DEFAULT, OF_MAX_LOG, MAX_OFFSET_CODE, None),
                ((modes >> 2) & 3, ML_DEFAULT, ML_MAX_LOG, len(ML_CODES) - 1, ML_CODES))):
            table: Optional[Prepared]
            if mode == 0:
                table = DEFAULT_TABLES[slot]
            elif mode == 1:
                symbol = block[position]
                position += 1
                if symbol > max_symbol:
                    raise ZstdError("RLE symbol out of range")
                table = prepared([(symbol, 0, 0)], codes)
            elif mode == 2:
                counts, log, used = read_fse_counts(block[position:], max_log, max_symbol)
                position += used
                table = fse_prepared(slot, counts, log, codes)
            else:
                table = self.tables[slot]
                if table is None:
                    raise ZstdError("repeated FSE table without a previous one")
            self.tables[slot] = table
            chosen.append(table)
        self.execute(block[position:], count, chosen, literals)

    def execute(self, stream: bytes, count: int, tables: List[Prepared],
                literals: bytes) -> None:
        """Run ``count`` sequences read from the backward bitstream ``stream``.

        The hot loop of the decoder, written for CPython's speed: the bitstream is read
        through a window (an int of up to WINDOW_BYTES bytes of the stream, refilled at most
        once per sequence, which reads at most SEQUENCE_BITS bits), so each field is one
        shift and one mask; the FSE tables are split into columns once per block."""
        ll_info, ll_bits, ll_bases, ll_log = tables[0]
        of_symbols, of_bits, of_bases, of_log = tables[1]
        ml_info, ml_bits, ml_bases, ml_log = tables[2]
        data, position = padded_stream(stream)
        from_bytes = int.from_bytes
        last = (position + 7) >> 3
        first = max(last - WINDOW_BYTES, 0)
        window = from_bytes(data[first:last], "little")
        low = first << 3
        shift = position - low  # the position within the window
        masks = MASKS
        shift -= ll_log
        ll_state = (window >> shift) & masks[ll_log]
        shift -= of_log
        of_state = (window >> shift) & masks[of_log]
        shift -= ml_log
        ml_state = (window >> shift) & masks[ml_log]
        out, repeats, used = self.out, self.repeats, 0
        max_output = self.max_output
        available = len(literals)
        for index in range(count):
            if shift < SEQUENCE_BITS:  # refill: the window ends at the position
                position = low + shift
                last = (position + 7) >> 3
                first = max(last - WINDOW_BYTES, 0)
                window = from_bytes(data[first:last], "little")
                low = first << 3
                shift = position - low
            of_code = of_symbols[of_state]  # at most MAX_OFFSET_CODE: every table's symbols are
            shift -= of_code
            offset_value = (1 << of_code) + ((window >> shift) & masks[of_code])
            base, extra = ml_info[ml_state]
            shift -= extra
            match = base + ((window >> shift) & masks[extra])
            base, extra = ll_info[ll_state]
            shift -= extra
            literal = base + ((window >> shift) & masks[extra])
            if offset_value > 3:
                offset = offset_value - 3
                repeats[2] = repeats[1]
                repeats[1] = repeats[0]
                repeats[0] = offset
            else:
                index_of = offset_value - (1 if literal else 0)
                if index_of == 0:
                    offset = repeats[0]
                elif index_of == 3:
                    offset = repeats[0] - 1
                    repeats[2] = repeats[1]
                    repeats[1] = repeats[0]
                    repeats[0] = offset
                elif index_of == 1:
                    offset = repeats[1]
                    repeats[1] = repeats[0]
                    repeats[0] = offset
                else:
                    offset = repeats[2]
                    repeats[2] = repeats[1]
                    repeats[1] = repeats[0]
                    repeats[0] = offset
            if used + literal > available:
                raise ZstdError("a sequence takes more literals than there are")
            size = len(out)
            if size + literal + match > max_output:
                raise ZstdError("more than %d bytes of output" % max_output)
            if literal:
                out += literals[used:used + literal]
                used += literal
                size += literal
            if offset < 1 or offset > size:
                raise ZstdError("match offset beyond the output")
            start = size - offset
            if match <= offset:
                out += out[start:start + match]
            else:  # an overlapping match repeats the last ``offset`` bytes
                pattern = bytes(out[start:])
                out += (pattern * (match // offset + 1))[:match]
            if index + 1 < count:
                bits = ll_bits[ll_state]
                shift -= bits
                ll_state = ll_bases[ll_state] + ((window >> shift) & masks[bits])
                bits = ml_bits[ml_state]
                shift -= bits
                ml_state = ml_bases[ml_state] + ((window >> shift) & masks[bits])
                bits = of_bits[of_state]
                shift -= bits
                of_state = of_bases[of_state] + ((window >> shift) & masks[bits])
        position = low + shift
        if position != PAD_BITS:
            raise ZstdError("the sequence bitstream is not consumed exactly")
        self.emit(literals[used:])


DECODERS.append(("pure Python", decompress_pure))
