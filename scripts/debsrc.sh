# debsrc.sh - sourced by scripts/build-linux-deps and scripts/build-windows: the pinned Debian
# source packages both build their libraries from, and the steps they share (fetch, check,
# unpack, build each once, keep its licence). Bash; the caller sets SRC (the download cache),
# P (the prefix it installs into), BUILDS (where sources are unpacked and logs kept), TOOL
# (its name, for messages) and defines build_NAME for each library it builds.

# name  Debian version  sha256 of the .dsc  upstream tarball  its sha256  licence files (upstream)
DEBSRC_PINS="
zlib 1:1.2.13.dfsg-1 3fa1e6b2fc525062aa88207dda52fed8e045373c809d362fe8a2bfbf7cf515a8 zlib_1.2.13.dfsg.orig.tar.bz2 71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1 LICENSE
bzip2 1.0.8-5 ed9c40f4de3f9e064535e15eac1c61a0f606763db98f4579dbc04067b94a8944 bzip2_1.0.8.orig.tar.gz ab5a03176ee106d3f0fa90e381da478ddae405918153cca248e682cd0c4a2269 LICENSE
xz-utils 5.4.1-1+deb12u2 bffc9917562b5787661379621bb1f7510bf7271b03d8ce4181cebc84b90d3c35 xz-utils_5.4.1.orig.tar.xz 5d9827aa1875b21c288f78864bb26d2650b436ea8d2cad364e4921eb6266a5a5 COPYING
lz4 1.9.4-1 e16302bca544d08d106efc216541f4a0403c8f8a5fad5eaac7588223a55af263 lz4_1.9.4.orig.tar.gz 0b0e3aa07c8c063ddf40b082bdf7e37a1562bda40a0ff5272957f3e987e0e54b lib/LICENSE
libzstd 1.5.4+dfsg2-5 8f602f92b575aa8b5e979196fb6ee82d78f233521dc9636526d3ecba1f63c1b1 libzstd_1.5.4+dfsg2.orig.tar.xz 8cf4bbb65e77ec348d052c8d6230eba66d435bddf64c8b5be2fcb16880c19953 LICENSE
libisal 2.30.0-5 f0376ddb24f0126641161054002a251ba48b52c2e28fe29cc7b5106e9f0938a8 libisal_2.30.0.orig.tar.xz f363f1be3d657d5676cef5253ee2233e60116e2fa9c9de86881185bf81e0e4b8 LICENSE
libseccomp 2.5.4-1+deb12u1 0ab1448c7206ee928f97a24d04300cfd3bb26babb4238c82fb71f507b5148595 libseccomp_2.5.4.orig.tar.gz d82902400405cf0068574ef3dc1fe5f5926207543ba1ae6f8e7a1576351dcbdb LICENSE
sqlite3 3.40.1-2+deb12u2 ee3459ae9d00939741c7708fc1b8ce1bde12d8c3fb1dfa005bbbc8651d884e23 sqlite3_3.40.1.orig.tar.xz aaa776260ab4dc976db34aa7891819484c8676b5b2783123ebc6301e2ca5d655 LICENSE.md
openssl 3.0.17-1~deb12u2 8eff0f04976f65df9a00507f286c18f42644d73124e3844258f037ff47c4f6cf openssl_3.0.17.orig.tar.gz dfdd77e4ea1b57ff3a6dbde6b0bdc3f31db5ac99e7fdd4eaf9e1fbb6ec2db8ce LICENSE.txt
elfutils 0.188-2.1 2e73c5bfe9d0ddbf837742d638c43b049590ae1de8f6e3d9c2740c28e2550760 elfutils_0.188.orig.tar.bz2 fb8b0e8d0802005b9a309c60c1d8de32dd2951b56f0c3a3cb56d21ce01595dff COPYING-LGPLV3
libzip 1.7.3-1 2b905c3e6277bb4ae62c4464c5c7bbbd6661715d5b3c0f94523c34df6d1f4d1e libzip_1.7.3.orig.tar.xz a60473ffdb7b4260c08bfa19c2ccea0438edac11193c3afbbb1f17fbcf6c6132 LICENSE
libarchive 3.6.2-1+deb12u5 aa86e919d6899ed11cc78c812d25a99b0493cbcc0e89b303507bf66d7dbda216 libarchive_3.6.2.orig.tar.xz 9e2c1b80d5fbe59b61308fdfab6c79b5021d7ff4ff2489fb12daf0a96a83551d COPYING
"

die() { echo "$TOOL: $*" >&2; exit 1; }

# debsrc_pool_fetch NAME DSC: without a deb-src entry, the .dsc and the files it lists straight
# from Debian's pool (main, then security); the pins and dpkg-source check what arrives
debsrc_pool_fetch() {
	local name=$1 dsc=$2 dir base f
	case $name in lib?*) dir=${name:0:4};; *) dir=${name:0:1};; esac
	for base in https://deb.debian.org/debian/pool/main https://deb.debian.org/debian-security/pool/updates/main; do
		curl -fsSL -o "$SRC/$dsc.part" "$base/$dir/$name/$dsc" 2>/dev/null || continue
		mv "$SRC/$dsc.part" "$SRC/$dsc"
		for f in $(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]* [0-9]* //p' "$SRC/$dsc"); do
			curl -fsSL -o "$SRC/$f" "$base/$dir/$name/$f" || return 1
		done
		return 0
	done
	return 1
}

# debsrc_fetch NAME VERSION DSC_SHA ORIG ORIG_SHA: the unpacked, patched Debian source in $B
debsrc_fetch() {
	local name=$1 ver=$2 dsc_sha=$3 orig=$4 orig_sha=$5
	local dsc=${name}_${ver#*:}.dsc
	if [ ! -f "$SRC/$dsc" ] || [ ! -f "$SRC/$orig" ]; then
		(cd "$SRC" && apt-get source --download-only -qq "$name=$ver" >/dev/null 2>&1) ||
			debsrc_pool_fetch "$name" "$dsc" ||
			die "neither apt-get source $name=$ver (is there a deb-src entry?) nor Debian's pool has it"
	fi
	echo "$dsc_sha  $SRC/$dsc" | sha256sum -c --quiet - || die "$dsc: sha256 differs from the pin"
	echo "$orig_sha  $SRC/$orig" | sha256sum -c --quiet - || die "$orig: sha256 differs from the pin"
	B=$BUILDS/$name
	rm -rf "$B"
	dpkg-source --no-check -x "$SRC/$dsc" "$B" >/dev/null 2>&1 || die "dpkg-source -x $dsc failed"
}

pc() {   # pc NAME LIBS [REQUIRES]: a pkg-config file for a library whose build writes none
	printf 'prefix=%s\nName: %s\nDescription: %s\nVersion: 0\nCflags: -I${prefix}/include\nLibs: -L${prefix}/lib %s\nRequires.private: %s\n' \
		"$P" "$1" "$1" "$2" "${3:-}" > "$P/lib/pkgconfig/$1.pc"
}

# debsrc_build NAME...: each named library (in the order given) fetched, built by the
# caller's build_NAME in its source directory and installed into $P, once: a stamp per
# version and recipe, so that a second run only checks the stamps. Its licence goes to $P/licenses/NAME:
# upstream's file and Debian's copyright summary.
debsrc_build() {
	local want name ver dsc_sha orig orig_sha lic stamp t0 rc found
	mkdir -p "$SRC" "$BUILDS" "$P/include" "$P/lib/pkgconfig" "$P/licenses"
	for want in "$@"; do
		found=0
		while read -r name ver dsc_sha orig orig_sha lic; do
			[ "$name" = "$want" ] || continue
			found=1
			# the stamp names the recipe too: a changed build_NAME builds that library again
			stamp=$P/.built-$name-${ver#*:}-$(declare -f "build_$name" | sha256sum | cut -c1-12)
			[ -f "$stamp" ] && break
			t0=$(date +%s)
			debsrc_fetch "$name" "$ver" "$dsc_sha" "$orig" "$orig_sha"
			# not under || : set -e would be off inside, and a failed configure would go unseen
			set +e
			(set -e; cd "$B"; "build_$name") >"$BUILDS/$name.log" 2>&1
			rc=$?
			set -e
			[ $rc -eq 0 ] ||
				die "$name $ver: the build failed; see $BUILDS/$name.log (last lines: $(tail -n 3 "$BUILDS/$name.log" | tr '\n' ' '))"
			mkdir -p "$P/licenses/$name"
			cp "$B/$lic" "$P/licenses/$name/" && cp "$B/debian/copyright" "$P/licenses/$name/debian-copyright"
			echo "$name $ver" > "$P/licenses/$name/VERSION"
			rm -rf "$B"
			touch "$stamp"
			echo "$TOOL: $name $ver built in $(( $(date +%s) - t0 ))s" >&2
			break
		done <<< "$DEBSRC_PINS"
		[ $found = 1 ] || die "no pin for $want in scripts/debsrc.sh"
	done
}
