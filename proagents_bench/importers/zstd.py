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
is kept for the next block that describes it again (Inspect's entries repeat a few tables).
About three times the speed of a bit reader with a call per field (``bench import
--template-log`` on a zstd log prints it). Where present, ``compression.zstd`` (Python
3.14+) or the ``zstandard`` package decode instead (:data:`DECODERS`), with the same bytes.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

# An FSE decoding table: per state, (symbol, bits to read, baseline).
FseTable = List[Tuple[int, int, int]]
# An FSE table as Frame.execute reads it: the symbols (ints for offsets, (baseline, extra
# bits) pairs for the lengths: Any, since which one depends on the table's slot), the bits,
# the baselines, and the accuracy log.
Prepared = Tuple[List[Any], List[int], List[int], int]
# A Huffman table as two columns (symbols, lengths), with its max bits.
HuffmanColumns = Tuple[Tuple[List[int], List[int]], int]
_Key = TypeVar("_Key")
_Value = TypeVar("_Value")

FRAME_MAGIC = 0xFD2FB528
SKIPPABLE_MASK = 0xFFFFFFF0
SKIPPABLE_MAGIC = 0x184D2A50
MAX_BLOCK_BYTES = 128 * 1024
MAX_HUFFMAN_BITS = 11
MAX_HUFFMAN_WEIGHT_LOG = 6
LL_MAX_LOG, ML_MAX_LOG, OF_MAX_LOG = 9, 9, 8
MAX_OFFSET_CODE = 31

# Literal lengths and match lengths: (baseline, extra bits) per code (RFC 8878 3.1.1.3.2.1.1).
LL_CODES = [(code, 0) for code in range(16)] + [
    (16, 1), (18, 1), (20, 1), (22, 1), (24, 2), (28, 2), (32, 3), (40, 3), (48, 4), (64, 6),
    (128, 7), (256, 8), (512, 9), (1024, 10), (2048, 11), (4096, 12), (8192, 13), (16384, 14),
    (32768, 15), (65536, 16)]
ML_CODES = [(code + 3, 0) for code in range(32)] + [
    (35, 1), (37, 1), (39, 1), (41, 1), (43, 2), (47, 2), (51, 3), (59, 3), (67, 4), (83, 4),
    (99, 5), (131, 7), (259, 8), (515, 9), (1027, 10), (2051, 11), (4099, 12), (8195, 13),
    (16387, 14), (32771, 15), (65539, 16)]
# The predefined distributions (RFC 8878 3.1.1.3.2.2) and their accuracy logs.
LL_DEFAULT = ([4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2,
               1, 1, 1, 1, 1, -1, -1, -1, -1], 6)
ML_DEFAULT = ([1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
               1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1,
               -1], 6)
OF_DEFAULT = ([1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
               -1, -1, -1], 5)


class ZstdError(Exception):
    """Data that is not valid Zstandard (or a dictionary frame, or too large)."""


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
            self.huffman, used = _huffman_columns(section)
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
                table = _DEFAULT_TABLES[slot]
            elif mode == 1:
                symbol = block[position]
                position += 1
                if symbol > max_symbol:
                    raise ZstdError("RLE symbol out of range")
                table = _prepared([(symbol, 0, 0)], codes)
            elif mode == 2:
                counts, log, used = read_fse_counts(block[position:], max_log, max_symbol)
                position += used
                table = _cached(_FSE_CACHE, (slot, tuple(counts), log),
                                lambda: _prepared(fse_table(counts, log), codes))
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
        data, position = _padded(stream)
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


# The fast paths' bitstream reading (see :meth:`Frame.execute`, :func:`huffman_stream`): a
# stream is padded with PAD_BITS zero bits below its start, so that reading near its start
# needs no test (a stream that reads below its padding is corrupt: a negative shift, a
# ValueError, reported as ZstdError); the window is an int of at most WINDOW_BYTES bytes.
PAD_BITS = 128
WINDOW_BYTES = 64
# The most bits one sequence reads: an offset (31), a match length (16) and a literal length
# (16) of extra bits, and the three states (9, 9 and 8 bits).
SEQUENCE_BITS = 96
MASKS = [(1 << bits) - 1 for bits in range(64)]


def _padded(stream: bytes) -> Tuple[bytes, int]:
    """(the stream with PAD_BITS zero bits before it, the bit position after its end mark)."""
    if not stream or stream[-1] == 0:
        raise ZstdError("bitstream without its end mark")
    data = bytes(PAD_BITS >> 3) + stream
    return data, (len(data) - 1) * 8 + data[-1].bit_length() - 1


def _prepared(table: FseTable, codes: Optional[List[Tuple[int, int]]]) -> Prepared:
    """An FSE decoding table (per state: symbol, bits, baseline) as :meth:`Frame.execute`
    reads it: per state its symbol (with ``codes``, the symbol's (baseline, extra bits) of
    a length), its bits and its baseline, then the table's accuracy log."""
    symbols: List[Any] = [entry[0] for entry in table]
    if codes is not None:
        symbols = [codes[symbol] for symbol in symbols]
    return (symbols, [entry[1] for entry in table], [entry[2] for entry in table],
            _log_of(table))


# Blocks of one log use the same few tables again and again: each table made is kept (keyed
# by its description) for the next block that describes it, up to CACHE_SIZE tables of each
# kind (then the cache starts again), so memory stays bounded.
CACHE_SIZE = 256
_FSE_CACHE: Dict[Tuple[int, Tuple[int, ...], int], Prepared] = {}
_HUFFMAN_CACHE: Dict[bytes, HuffmanColumns] = {}


def _cached(cache: Dict[_Key, _Value], key: _Key, make: Callable[[], _Value]) -> _Value:
    found = cache.get(key)
    if found is None:
        if len(cache) >= CACHE_SIZE:
            cache.clear()
        found = cache[key] = make()
    return found


def _huffman_columns(section: bytes) -> Tuple[HuffmanColumns, int]:
    """The Huffman table described at the start of ``section`` as (symbols, lengths) columns
    with its max bits, and the description's size; made once per distinct description."""
    header = section[0]
    used = 1 + header if header < 128 else 1 + (header - 127 + 1) // 2
    key = bytes(section[:used])

    def make() -> HuffmanColumns:
        (table, max_bits), _used = huffman_table(key)
        return ([entry[0] for entry in table], [entry[1] for entry in table]), max_bits
    return _cached(_HUFFMAN_CACHE, key, make), used


def _default_tables() -> List[Prepared]:
    """The predefined tables of literal lengths, offsets and match lengths, prepared once."""
    return [_prepared(fse_table(*LL_DEFAULT), LL_CODES), _prepared(fse_table(*OF_DEFAULT), None),
            _prepared(fse_table(*ML_DEFAULT), ML_CODES)]


def _log_of(table: Sequence[object]) -> int:
    return (len(table) - 1).bit_length()


def _next_state(table: FseTable, state: int, bits: BackwardBits) -> int:
    _symbol, count, baseline = table[state]
    return baseline + bits.read(count)


class BackwardBits:
    """A zstd backward bitstream: read from the end towards the start, after the final
    byte's highest set bit; past the start it reads zeros and counts the overrun."""

    def __init__(self, data: bytes) -> None:
        if not data or data[-1] == 0:
            raise ZstdError("bitstream without its end mark")
        self.data = data
        self.position = (len(data) - 1) * 8 + data[-1].bit_length() - 1

    def read(self, count: int) -> int:
        if count == 0:
            return 0
        self.position -= count
        return self.peek_at(self.position, count)

    def peek(self, count: int) -> int:
        return self.peek_at(self.position - count, count)

    def peek_at(self, position: int, count: int) -> int:
        if position >= 0:
            start = position >> 3
            shift = position & 7
            chunk = int.from_bytes(self.data[start:start + ((shift + count + 7) >> 3)],
                                   "little")
            return (chunk >> shift) & ((1 << count) - 1)
        if position + count <= 0:
            return 0
        return self.peek_at(0, position + count) << -position

    def skip(self, count: int) -> None:
        self.position -= count

    def overflowed(self) -> bool:
        return self.position < 0

    def finished(self) -> bool:
        return self.position == 0


# -- FSE ------------------------------------------------------------------------------------

def read_fse_counts(data: bytes, max_log: int, max_symbol: int) -> Tuple[List[int], int, int]:
    """A table description: (normalized counts, accuracy log, bytes used)."""
    value = int.from_bytes(data[:64], "little")  # a description is at most 40-odd bytes
    position = 4
    log = (value & 15) + 5
    if log > max_log:
        raise ZstdError("FSE accuracy log %d above %d" % (log, max_log))
    remaining = (1 << log) + 1
    threshold = 1 << log
    bits = log + 1
    counts: List[int] = []
    previous_zero = False
    while remaining > 1 and len(counts) <= max_symbol:
        if previous_zero:
            while True:
                repeat = (value >> position) & 3
                position += 2
                counts.extend([0] * repeat)
                if repeat != 3:
                    break
            if len(counts) > max_symbol:
                raise ZstdError("FSE zero run past the last symbol")
        low = (value >> position) & (threshold - 1)
        limit = (2 * threshold - 1) - remaining
        if low < limit:
            count = low
            position += bits - 1
        else:
            count = (value >> position) & (2 * threshold - 1)
            if count >= threshold:
                count -= limit
            position += bits
        count -= 1
        remaining -= abs(count)
        counts.append(count)
        previous_zero = count == 0
        while remaining < threshold:
            bits -= 1
            threshold >>= 1
    if remaining != 1 or len(counts) > max_symbol + 1 or position > 64 * 8:
        raise ZstdError("bad FSE table description")
    return counts, log, (position + 7) >> 3


def fse_table(counts: List[int], log: int) -> FseTable:
    """The decoding table: per state, (symbol, bits to read, baseline)."""
    size = 1 << log
    symbols = [0] * size
    high = size - 1
    for symbol, count in enumerate(counts):
        if count == -1:
            symbols[high] = symbol
            high -= 1
    step = (size >> 1) + (size >> 3) + 3
    mask = size - 1
    position = 0
    for symbol, count in enumerate(counts):
        for _ in range(max(count, 0)):
            symbols[position] = symbol
            position = (position + step) & mask
            while position > high:
                position = (position + step) & mask
    if position != 0:
        raise ZstdError("FSE counts do not fill the table")
    following = [1 if count == -1 else count for count in counts]
    table: FseTable = []
    for state in range(size):
        symbol = symbols[state]
        number = following[symbol]
        following[symbol] += 1
        bits = log - (number.bit_length() - 1)
        table.append((symbol, bits, (number << bits) - size))
    return table


# -- Huffman --------------------------------------------------------------------------------

def huffman_table(data: bytes) -> Tuple[Tuple[List[Tuple[int, int]], int], int]:
    """The literals' Huffman table from its description: ((table, max bits), bytes used)."""
    header = data[0]
    if header < 128:
        counts, log, used = read_fse_counts(data[1:1 + header], MAX_HUFFMAN_WEIGHT_LOG, 255)
        fse = fse_table(counts, log)
        bits = BackwardBits(data[1 + used:1 + header])
        weights: List[int] = []
        first, second = bits.read(log), bits.read(log)
        while len(weights) < 255:
            weights.append(fse[first][0])
            first = _next_state(fse, first, bits)
            if bits.overflowed():
                weights.append(fse[second][0])
                break
            weights.append(fse[second][0])
            second = _next_state(fse, second, bits)
            if bits.overflowed():
                weights.append(fse[first][0])
                break
        used_total = 1 + header
    else:
        count = header - 127
        used_total = 1 + (count + 1) // 2
        weights = []
        for byte in data[1:used_total]:
            weights.extend((byte >> 4, byte & 15))
        weights = weights[:count]
    if any(weight > MAX_HUFFMAN_BITS for weight in weights):
        raise ZstdError("Huffman weight out of range")
    total = sum(1 << (weight - 1) for weight in weights if weight)
    if total == 0:
        raise ZstdError("empty Huffman table")
    max_bits = total.bit_length()
    rest = (1 << max_bits) - total
    if rest & (rest - 1) or max_bits > MAX_HUFFMAN_BITS:
        raise ZstdError("Huffman weights do not complete a tree")
    weights.append(rest.bit_length())
    table: List[Tuple[int, int]] = [(0, 0)] * (1 << max_bits)
    position = 0
    for weight, symbol in sorted((weight, symbol) for symbol, weight in enumerate(weights)
                                 if weight):
        length = max_bits + 1 - weight
        span = 1 << (max_bits - length)
        table[position:position + span] = [(symbol, length)] * span
        position += span
    return (table, max_bits), used_total


def huffman_stream(data: bytes, size: int, table: Tuple[List[int], List[int]],
                   max_bits: int) -> bytes:
    """``size`` literals from one Huffman-coded backward stream, consumed exactly, with the
    ``table`` of :func:`huffman_table` as two columns (symbols, lengths); read through a
    window as :meth:`Frame.execute` reads sequences."""
    padded, position = _padded(data)
    symbols, lengths = table
    mask = MASKS[max_bits]
    from_bytes = int.from_bytes
    out = bytearray(size)
    # ``shift``: where the next code starts within the window (max_bits below the position);
    # each symbol reads at most max_bits bits, so a negative shift means a refill: the
    # window is reloaded with WINDOW_BYTES bytes ending at the position.
    window = 0
    shift = -1  # load first
    low = position - max_bits + 1
    for index in range(size):
        if shift < 0:
            position = low + shift + max_bits
            last = (position + 7) >> 3
            first = max(last - WINDOW_BYTES, 0)
            window = from_bytes(padded[first:last], "little")
            low = first << 3
            shift = position - max_bits - low
        code = (window >> shift) & mask
        out[index] = symbols[code]
        shift -= lengths[code]
    position = low + shift + max_bits
    if position != PAD_BITS:
        raise ZstdError("a literals stream is not consumed exactly")
    return bytes(out)


_DEFAULT_TABLES = _default_tables()

DECODERS.append(("pure Python", decompress_pure))
