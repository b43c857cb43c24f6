"""Returns bytes no text path keeps as they are: NULs, a lone CR, invalid UTF-8, no final newline."""


def compile(data, options):
    return b"\x00head\r\n" + data[::-1] + b"\xff\xfe" + " ".join(options).encode() + b"\x00\x00tail"
