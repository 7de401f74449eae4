/* ws_decode.h - the byte decoders: fatbin containers and entries, entry
 * payloads, cubins and PTX. Each takes a span (p, n) and an error buffer;
 * none opens files or prints. */
#ifndef WS_DECODE_H
#define WS_DECODE_H

#include "wheelscan.h"

#define WS_FATBIN_MAGIC 0xBA55ED50u
#define WS_FATBIN_HEADER_SIZE 16
#define WS_ENTRY_MIN_HEADER 64
#define WS_ENTRY_MAX_HEADER 4096      /* real headers are 64..144 bytes */
/* Bytes a validated magic search needs: container header + the first entry's fixed header. */
#define WS_FATBIN_PROBE_BYTES (WS_FATBIN_HEADER_SIZE + WS_ENTRY_MIN_HEADER)

/* Entry flag bits (doc/fatbin-format.md (c)). */
#define WS_EF_64BIT      0x1ull
#define WS_EF_DEBUG      0x2ull
#define WS_EF_LZ4        0x2000ull
#define WS_EF_ZSTD       0x8000ull
#define WS_EF_OBFUSCATED 0x10000ull
#define WS_EF_ARCH_A     0x100000ull
#define WS_EF_ARCH_F     0x200000ull

/* ---- decode contexts (decoder.c) ----
 * The scratch one payload decode needs: whole-entry and stream buffers, a zstd context,
 * the sparse cubin image. Reused from entry to entry (a fresh megabyte per entry costs
 * 256 page faults, and torch decodes tens of thousands of entries); each buffer grows
 * to the largest size asked of it. Whoever decodes holds one; nothing is per thread. */
struct ws_decoder;
enum ws_dbuf {
	WS_DBUF_DECODE,              /* a whole decompressed entry (src/core/payload.c) */
	WS_DBUF_STREAM,              /* the output chunk of a streamed entry (src/core/payload.c) */
	WS_DBUF_PTX,                 /* lines of a streamed PTX module (src/core/ptx.c) */
	WS_DBUF_SLOTS
};
struct ws_decoder *ws_decoder_new(void);     /* NULL when out of memory */
void ws_decoder_free(struct ws_decoder *dc);
/* Slot's buffer, at least n bytes (contents not kept when it grows); NULL when out of memory. */
void *ws_decoder_buf(struct ws_decoder *dc, enum ws_dbuf slot, size_t n);
struct ZSTD_DCtx_s *ws_decoder_zstd(struct ws_decoder *dc);
/* An anonymous mapping of at least n bytes, reserved but not committed. */
uint8_t *ws_decoder_image(struct ws_decoder *dc, size_t n);
/* Reads the 16-byte container header at p. Returns 0 and the bytes after the
 * header in *fat_size, or -1 with the reason. */
int ws_fatbin_header(const uint8_t *p, size_t n, uint64_t *fat_size, struct ws_err *err);

/* True when p holds a plausible container start: a valid header followed by
 * a plausible first entry header (needs WS_FATBIN_PROBE_BYTES). Used by the
 * magic search so that stray 0xBA55ED50 words in data are not taken. */
bool ws_fatbin_candidate(const uint8_t *p, size_t n);
/* The first occurrence of the container magic in (p, n), or NULL. */
const uint8_t *ws_fatbin_find(const uint8_t *p, size_t n);

/* Decodes the fixed part of an entry header (64 bytes at p) and returns the
 * header size in *hdr_size so the caller can make the whole header available.
 * `remaining` is what is left of the container from p on. */
int ws_entry_peek(const uint8_t *p, size_t n, uint64_t remaining, uint32_t *hdr_size,
		  uint64_t *payload_size, struct ws_err *err);

/* Decodes a whole entry header (n >= its header size) into e: kind, arch,
 * name, flags, sizes, compression, identifier and options strings. */
int ws_entry_header(const uint8_t *p, size_t n, struct ws_entry *e, struct ws_err *err);

/* The size checks every decoder makes first: compressed size within the payload,
 * decompressed size within lim->max_entry_bytes and possible for the format. */
int ws_payload_check(const struct ws_entry *e, size_t n, const struct ws_limits *lim, struct ws_err *err);
/* Decompresses an entry payload (p, n = payload_size bytes) into *out.
 * Uncompressed payloads are returned in place; compressed ones in dc's buffer, valid
 * until dc's next use (never freed by the caller). The output size is capped by the
 * header's claim and lim->max_entry_bytes. */
int ws_payload_decode(struct ws_decoder *dc, const struct ws_entry *e, const uint8_t *p, size_t n,
		      const struct ws_limits *lim, const uint8_t **out, size_t *outlen,
		      struct ws_err *err);

/* Large compressed PTX and cubins are read as a stream, in chunks of this size, instead of whole. */
#ifndef WS_STREAM_CHUNK                 /* fuzz builds shrink it to reach chunk boundaries */
#define WS_STREAM_CHUNK ((size_t)1 << 20)
#endif
#ifndef WS_STREAM_MIN                   /* fuzz and small-window test builds lower it */
#define WS_STREAM_MIN ((uint64_t)2 << 20)
#endif
/* Whether streaming entry e (n payload bytes at p) holds less memory than decoding it
 * whole. Not for a zstd frame whose window covers its whole content (nvcc writes most
 * large cuBLASLt cubins so): libzstd's stream decoder then buffers the whole content
 * itself and copies it out chunk by chunk, so decoding it whole costs the same memory,
 * one copy less and no second pass. */
bool ws_payload_stream_saves_memory(const struct ws_entry *e, const uint8_t *p, size_t n);
/* Takes n decoded bytes; returns 0, or -1 to stop with the reason set in err. */
typedef int (*ws_chunk_fn)(void *ctx, const uint8_t *p, size_t n, struct ws_err *err);
/* Decompresses an LZ4 or zstd entry chunk by chunk into sink, with the same size checks
 * as ws_payload_decode. Returns 0, or -1 with err set: by the sink when it stopped the
 * stream, else with what is wrong with the data. */
int ws_payload_stream(struct ws_decoder *dc, const struct ws_entry *e, const uint8_t *p, size_t n, const struct ws_limits *lim,
		      ws_chunk_fn sink, void *ctx, struct ws_err *err);

/* The toolkit (128 = 12.8) a ptxas producer string names, 0 if none. */
uint16_t ws_toolkit_of_producer(const char *producer);

/* Fills kernels, elf_sm, relocatable, toolkit, producer and tool_options of a
 * SASS entry from its cubin. Kernel names are interned into pool. The span
 * must stay writable-safe: it is only read. */
int ws_cubin_inspect(const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
		     const struct ws_limits *lim, struct ws_err *err);

/* Fills ptx_major/minor, ptx_target and kernels of a PTX entry from its text. */
int ws_ptx_inspect(const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
		   const struct ws_limits *lim, struct ws_err *err);

/* Same for a large compressed PTX entry, decoded as a stream through a bounded
 * buffer (a 35 MB module never needs 35 MB of memory). */
static inline bool ws_ptx_streamed(const struct ws_entry *e)
{
	return e->kind == WS_KIND_PTX && e->compression != WS_COMP_NONE &&
	       e->uncompressed_size >= WS_STREAM_MIN;
}
int ws_ptx_inspect_stream(struct ws_decoder *dc, const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
			const struct ws_limits *lim, struct ws_err *err);
/* Same for a large compressed cubin: the decoded bytes go into a sparse image that keeps
 * only the ELF header, section table, symbol and string tables and notes; the result is
 * what ws_cubin_inspect gives on the whole cubin (src/core/cubin_stream.c), without ever
 * holding the whole cubin: one with no usable section table is read from its header. */
static inline bool ws_sass_streamed(const struct ws_entry *e)
{
	return e->kind == WS_KIND_SASS && e->compression != WS_COMP_NONE &&
	       e->uncompressed_size >= WS_STREAM_MIN;
}
int ws_cubin_inspect_stream(struct ws_decoder *dc, const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
			    const struct ws_limits *lim, struct ws_err *err);
/* A SASS or PTX payload (n = payload_size bytes at p) to the entry's facts, decoded
 * whole or as a stream by size. Errors name the entry. */
int ws_entry_inspect(struct ws_decoder *dc, const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
		     const struct ws_limits *lim, struct ws_err *err);
/* The same, always decoding the payload whole into dc's buffer. */
int ws_entry_inspect_whole(struct ws_decoder *dc, const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
			   const struct ws_limits *lim, struct ws_err *err);

/* Formats e->name from kind, arch and suffix: "sm_90a", "compute_120f", "lto_100". */
void ws_entry_name(struct ws_entry *e);
/* Settles the entry's a/f suffix once its payload is decoded (the flags' marker, else a
 * PTX ".target"'s) and renames it to match: judging and every report read e->suffix. */
void ws_entry_finish(struct ws_entry *e);

/* Short names for reports. */
const char *ws_kind_name(uint16_t kind);          /* "sass", "ptx", "ltoir", "unknown" */
const char *ws_compression_name(enum ws_compression c);

#endif
