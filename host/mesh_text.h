// Text cursor shared by the mesh readers (Gmsh .msh, TetGen .node/.ele, Wavefront .obj): the
// whole file in memory, blank-separated tokens taken line by line, integer and real numbers,
// and "path:line: what is wrong" messages written into the caller's buffer. Format-specific
// parsing stays in each reader. Internal to the library.
#ifndef ALC_HOST_MESH_TEXT_H_
#define ALC_HOST_MESH_TEXT_H_

#include "alc/alc_types.h"

#include <stddef.h>

/// Size of the buffer alci_text_shown writes: 32 characters, "..." and the NUL.
#define ALCI_TEXT_SHOWN 40

/// A line-oriented cursor over one file held in memory. Fill with alci_text_open, release with
/// alci_text_close. The fields are open: a reader of binary data moves pos and counts the
/// newlines it crosses in line itself. Blanks are ' ', '\t', '\r', '\v' and '\f'; a token is a
/// run of other characters, ended by a blank, a newline or a comment.
typedef struct alciText_ {
    const char* path;     ///< file name, for messages (not owned)
    char* buf;            ///< the file contents, NUL-terminated (owned; NULL until read)
    size_t len;           ///< bytes in buf, the NUL not counted
    size_t pos;           ///< read position, at most len
    int line;             ///< 1-based line of buf[pos]; 0 until the file is read
    char comment;         ///< character that starts a comment to the end of the line; 0: none
    const char* section;  ///< when not NULL, named in missing-token and end-of-line messages
                          ///< ("unexpected end of file in $Nodes, ..."); not owned
    char* err;            ///< caller buffer for the first error message (not owned; nullable)
    int errsz;            ///< size of err
} alciText;

/// Zero the cursor, then read the whole file at path into t->buf (line 1, position 0). Messages
/// of a failed read name line 0. path and err are kept, not copied: they must outlive t.
/// @param[in]  comment  the comment character (t->comment), 0 for none
/// @param[out] err      "path:0: cannot open: <strerror>", "...: read error" or "...: out of
///                      memory reading the file", when err is still empty (see alci_text_fail)
/// @return ALC_OK, ALC_ERR_IO (cannot open or read), ALC_ERR_NOMEM. t->buf stays NULL on
/// failure. Nullable: err
alctStatus alci_text_open(alciText* t, const char* path, char comment, char* err, int errsz);

/// Free the buffer and zero the cursor. Safe on a zeroed or failed-to-open cursor.
void alci_text_close(alciText* t);

/// Write "path:line: <printf message>" into t->err, unless err is NULL, errsz <= 0 or err
/// already holds a message (the first error wins; the caller empties err beforehand). When the
/// whole file has been read and it ends with a newline, t->line is first stepped back so that
/// the message names the file's last line rather than the empty one after it.
/// @return s, so that a reader can write `return alci_text_fail(t, ALC_ERR_SCENE, ...)`.
alctStatus alci_text_fail(alciText* t, alctStatus s, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/// Next token: skip blanks and comments (and newlines, counting them, when crossLines), then
/// take the token at the position; the cursor moves past it.
/// @param[out] n  the token's length; 0 at the end of the line (crossLines == 0) or of the file
/// @return a pointer into t->buf (not NUL-terminated; valid until alci_text_close).
const char* alci_text_token(alciText* t, int crossLines, size_t* n);

/// Copy the n bytes at tok into out for a message: non-printable bytes become '?', and a token
/// longer than 32 bytes is cut to 32 followed by "...".
/// @return out.
const char* alci_text_shown(const char* tok, size_t n, char out[ALCI_TEXT_SHOWN]);

/// Parse the whole of the n bytes at tok as a decimal integer (strtoll base 10). An empty
/// token, one of 40 bytes or more, trailing characters and overflow are refused.
/// @return 1 with *out set, or 0 (then *out is unspecified).
int alci_text_toInt(const char* tok, size_t n, long long* out);

/// Parse the whole of the n bytes at tok as a real number (strtod; "inf" and "nan" are accepted
/// here, the caller checks finiteness). An empty token, one of 64 bytes or more and trailing
/// characters are refused.
/// @return 1 with *out set, or 0 (then *out is unspecified).
int alci_text_toReal(const char* tok, size_t n, double* out);

/// Report a missing token where `what` was expected: "unexpected end of file, expected <what>"
/// at the end of the file, otherwise "line ends early, expected <what>" (both with
/// " in <section>" after "file" / "early" when t->section is set).
/// @return ALC_ERR_SCENE.
alctStatus alci_text_missing(alciText* t, const char* what);

/// Read the next token (on this line unless crossLines) as an integer.
/// @param[in] what  the expected value, for messages ("the number of points")
/// @return ALC_OK; ALC_ERR_SCENE when it is missing (alci_text_missing) or not an integer
/// ("expected <what> (an integer), found '<token>'").
alctStatus alci_text_readInt(alciText* t, int crossLines, const char* what, long long* out);

/// Read the next token (on this line unless crossLines) as a finite real number.
/// @param[in] what  the expected value, for messages ("x coordinate")
/// @return ALC_OK; ALC_ERR_SCENE when it is missing (alci_text_missing), not a number
/// ("expected <what> (a number), found '<token>'") or not finite ("<what> is not finite
/// ('<token>')").
alctStatus alci_text_readReal(alciText* t, int crossLines, const char* what, double* out);

/// Finish the current line: only blanks or a comment may remain. The cursor stops at the
/// newline, or moves past it (counting the line) when consume is set.
/// @return ALC_OK, or ALC_ERR_SCENE "unexpected '<token>' at the end of the line" (with
/// " in <section>" when t->section is set).
alctStatus alci_text_endLine(alciText* t, int consume);

/// Refuse a declared item count that is negative, above limit, or larger than the bytes left
/// in the file allow when each item takes at least minBytes (> 0) bytes.
/// @param[in] what  the items, for messages ("points")
/// @return ALC_OK or ALC_ERR_SCENE ("negative number of <what> (<count>)", "<count> <what>
/// declared, but the file has only <k> bytes left (truncated or corrupt)").
alctStatus alci_text_checkCount(alciText* t, long long count, long long limit, size_t minBytes,
                                const char* what);

#endif  // ALC_HOST_MESH_TEXT_H_
