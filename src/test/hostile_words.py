"""hostile_words.py - the corpus of hostile words the command round trips render and run
(src/test/commands.sh: bash and dash; src/test/windows/cmd_roundtrip.sh: cmd.exe under
Wine): quotes, $(), backticks, %VAR%, ^ & | ! < > ~ *, blanks, a tab, CR, line breaks, a
leading -, bytes outside ASCII, a stray byte, the empty word."""
CORPUS = [b"'", b'"', b"$(touch PWNED)", b"`touch PWNED`", b"%PATH%", b"^", b"&", b"|", b"!", b"!!", b"!$",
          b"!-1", b"<", b">", b">PWNED", b"~", b"~/x", b"~root", b"*", b"?", b"[a]", b"a b", b"a\tb", b"a\nb",
          b"\n", b"-rreq", b"--index-url=x", b"\xc3\xbcmlaut-\xe6\x97\xa5\xe6\x9c\xac", b"\xff", b"", b"$HOME",
          b"${HOME}", b"\\", b'a\\"b', b"a b\\", b"{a,b}", b"#x", b";", b"x;touch PWNED", b"a'b\"c", b"=x",
          b"x=y", b"\\\\server\\share", b"$'x'", b"@a", b"(x)", b"\xe2\x80\x99curly\xe2\x80\x98", b"%%",
          b"^%PATH^%", b"a&&b", b"a||b", b" ", b"  lead", b"trail ", b"\r", b"https://example.org/simple>~/.bashrc",
          b"torch==2.8.0+cu128", b"'\\''", b"\\n", b"$((1+1))", b"a\\\nb"]
