"""Zstandard's entropy tables (RFC 8878 section 4), for the frames of :mod:`.zstd`: FSE
tables (4.1) read from their descriptions, the predefined distributions and the codes of the
lengths they decode (3.1.1.3.2), the literals' Huffman tables (4.2) and a Huffman-coded
stream. Every table is checked against the format's bounds before it is used (anything
malformed raises :class:`ZstdError`), and every table a block describes is kept for the next
block that describes it again (Inspect's entries repeat a few tables).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

# An FSE decoding table: per state, (symbol, bits to read, baseline).
FseTable = List[Tuple[int, int, int]]
# An FSE table as zstd.Frame.execute reads it: the symbols (ints for offsets, (baseline, extra
# bits) pairs for the lengths: Any, since which one depends on the table's slot), the bits,
# the baselines, and the accuracy log.
Prepared = Tuple[List[Any], List[int], List[int], int]
# A Huffman table as two columns (symbols, lengths), with its max bits.
HuffmanColumns = Tuple[Tuple[List[int], List[int]], int]
_Key = TypeVar("_Key")
_Value = TypeVar("_Value")

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


# The fast paths' bitstream reading (see :meth:`.zstd.Frame.execute`, :func:`huffman_stream`): a
# stream is padded with PAD_BITS zero bits below its start, so that reading near its start
# needs no test (a stream that reads below its padding is corrupt: a negative shift, a
# ValueError, reported as ZstdError); the window is an int of at most WINDOW_BYTES bytes.
PAD_BITS = 128
WINDOW_BYTES = 64
MASKS = [(1 << bits) - 1 for bits in range(64)]


def padded_stream(stream: bytes) -> Tuple[bytes, int]:
    """(the stream with PAD_BITS zero bits before it, the bit position after its end mark)."""
    if not stream or stream[-1] == 0:
        raise ZstdError("bitstream without its end mark")
    data = bytes(PAD_BITS >> 3) + stream
    return data, (len(data) - 1) * 8 + data[-1].bit_length() - 1


def prepared(table: FseTable, codes: Optional[List[Tuple[int, int]]]) -> Prepared:
    """An FSE decoding table (per state: symbol, bits, baseline) as :meth:`.zstd.Frame.execute`
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


def fse_prepared(slot: int, counts: List[int], log: int,
                 codes: Optional[List[Tuple[int, int]]]) -> Prepared:
    """The FSE table a block describes by its normalized ``counts`` and accuracy ``log``, for
    ``slot`` (0 literal lengths, 1 offsets, 2 match lengths), as :func:`prepared` makes it;
    made once per distinct description."""
    return _cached(_FSE_CACHE, (slot, tuple(counts), log),
                   lambda: prepared(fse_table(counts, log), codes))


def huffman_columns(section: bytes) -> Tuple[HuffmanColumns, int]:
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
    return [prepared(fse_table(*LL_DEFAULT), LL_CODES), prepared(fse_table(*OF_DEFAULT), None),
            prepared(fse_table(*ML_DEFAULT), ML_CODES)]


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
    window as :meth:`.zstd.Frame.execute` reads sequences."""
    padded, position = padded_stream(data)
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


DEFAULT_TABLES = _default_tables()
