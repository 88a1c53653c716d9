/* saspu_grid.h: public C API of saspu's grid pathfinding (Dijkstra and A*). */
#ifndef saspu_grid_h
#define saspu_grid_h

#include <stddef.h>

#include "saspu.h" /* SpAllocator, SpStatus, SP_ERROR_MESSAGE_SIZE */

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Model                                                              */
/* ------------------------------------------------------------------ */
/* A grid is width x height cells. Coordinates are 0-based in C: x in
 * 0..width-1 (left to right), y in 0..height-1 (top to bottom, so y is the
 * line of an ASCII picture). The Lua layer adds 1; error messages can be
 * rendered in either base with sp_grid_error_format.
 *
 * Every cell has a crossing cost, stored as a C float (24-bit mantissa:
 * integers up to 2^24 are exact, 1.1 reads back as 1.10000002384...), and
 * a blocked flag. Blocking a cell keeps its cost, so unblocking restores
 * it; setting the cost of a blocked cell changes the remembered cost and
 * leaves the cell blocked.
 *
 * A move goes to one of the 8 neighbours and crosses half of each cell:
 *   cost(a -> b) = (cost(a) + cost(b)) / 2, times sqrt(2) on a diagonal.
 * A search adds up the straight and the diagonal parts of a path's cost
 * separately, in double precision (exact with integer costs), and
 * multiplies by sqrt(2) once at the end. By default a diagonal move is
 * refused when either of the two cells it passes between (the orthogonal
 * neighbours shared by a and b) is blocked: units do not cut the corner of
 * a wall. SpGridQuery.allow_corner_cutting lifts that rule entirely. */

#if !defined(SP_GRID_MAX_SIDE)
#define SP_GRID_MAX_SIDE 32768
#endif

#if !defined(SP_GRID_MAX_CELLS)
#define SP_GRID_MAX_CELLS 67108864 /* 2^26 */
#endif

/* Valid costs are finite numbers in [SP_GRID_MIN_COST, SP_GRID_MAX_COST]. */
#if !defined(SP_GRID_MIN_COST)
#define SP_GRID_MIN_COST 0.001
#endif

#if !defined(SP_GRID_MAX_COST)
#define SP_GRID_MAX_COST 1000000.0
#endif

/* In a bulk cost array (sp_grid_set_costs), this value blocks the cell. */
#define SP_GRID_BLOCKED 0.0

typedef struct SpGrid SpGrid;
typedef struct SpGridWorkspace SpGridWorkspace;

typedef struct SpGridPoint {
  int x, y;
} SpGridPoint;

/* ------------------------------------------------------------------ */
/* Errors                                                             */
/* ------------------------------------------------------------------ */

typedef enum SpGridErrorCode {
  SP_GRID_E_NONE = 0,
  SP_GRID_E_MEMORY,      /* the allocator returned NULL */
  SP_GRID_E_ARGUMENT,    /* a NULL pointer or an unknown option value */
  SP_GRID_E_SIZE,        /* grid size outside 1..SP_GRID_MAX_SIDE, cells */
  SP_GRID_E_COST,        /* a cost that is not a valid cost */
  SP_GRID_E_RANGE,       /* a cell or rectangle outside the grid */
  SP_GRID_E_BLOCKED,     /* the start or the target is blocked */
  SP_GRID_E_UNREACHABLE, /* no path from start to target */
  SP_GRID_E_MISMATCH,    /* workspace made for a grid of another size */
  SP_GRID_E_HEAP_FULL,   /* open list full (only with a heap_capacity) */
  SP_GRID_E_MAP_CHAR,    /* ASCII picture: a character outside the legend */
  SP_GRID_E_MAP_RAGGED,  /* ASCII picture: rows of different lengths */
  SP_GRID_E_MAP_EMPTY    /* ASCII picture: no cells at all */
} SpGridErrorCode;

/* Filled by every grid function that can fail (pass NULL to skip it).
 * Which fields mean something depends on `code`; unused ints are -1.
 *   status    SP_ERR_MEMORY (MEMORY, HEAP_FULL), SP_ERR_INVALID (ARGUMENT,
 *             SIZE, COST, MISMATCH, MAP_*), SP_ERR_STATE (RANGE, BLOCKED),
 *             SP_NO_PLAN (UNREACHABLE)
 *   what      a static phrase naming the culprit: "start", "target",
 *             "cell", "rectangle", "picture", "default cost", "cost", or
 *             the argument ("grid is NULL")
 *   x, y      the cell at fault (0-based), or a rectangle's corner
 *   to_x/to_y UNREACHABLE: the target
 *   span_w/h  RANGE: the rectangle's size; MISMATCH: the workspace's grid
 *   width/h   the grid's size (RANGE, MISMATCH) or the refused size (SIZE)
 *   line/col  MAP_*: 1-based position in the picture (bytes)
 *   found     MAP_RAGGED: cells on that line; HEAP_FULL: the capacity;
 *             ARGUMENT: the unknown option value
 *   expected  MAP_RAGGED: cells on line 1
 *   character MAP_CHAR: the byte (0..255)
 *   value     COST: the refused number
 *   message   the sentence sp_grid_error_format(err, 0, ...) writes.
 * Why a record of its own beside SpError: both start with the same
 * status and end with a message, but the rest describes different
 * things. SpError names a domain's parts (action, variable, value, field,
 * as indices into the domain); a grid error names cells, rectangles and
 * positions in a picture, which the Lua binding must print again 1-based
 * (sp_grid_error_format(err, 1, ...)) and so keeps as numbers, not only in
 * the message. One record would carry both sets of fields with half of
 * them unused in every error, and the grid stage (which knows no domain)
 * would depend on the domain's record. */
typedef struct SpGridError {
  SpStatus status;
  SpGridErrorCode code;
  const char *what;
  int x, y;
  int to_x, to_y;
  int span_w, span_h;
  int width, height;
  int line, column;
  int found, expected;
  int character;
  double value;
  char message[SP_ERROR_MESSAGE_SIZE];
} SpGridError;

/* Short name of a code: "unreachable", "blocked", "map character"... */
SP_API const char *sp_grid_error_name(SpGridErrorCode code);

/* Writes the error sentence with cell coordinates shown in `base` (0 for
 * C, 1 for Lua); line and column are always 1-based. snprintf-like:
 * returns the full length, writes at most size-1 chars and a NUL. */
SP_API size_t sp_grid_error_format(const SpGridError *err, int base, char *buf,
                                   size_t size);

/* ------------------------------------------------------------------ */
/* Grid                                                               */
/* ------------------------------------------------------------------ */

/* A width x height grid, every cell open with cost `cost`. One allocation
 * through `alloc` (5 bytes per cell, border included: the cost and a mask
 * of open neighbours); on failure *out is NULL and nothing is leaked. */
SP_API SpStatus sp_grid_new(int width, int height, double cost,
                            SpAllocator alloc, SpGrid **out, SpGridError *err);

/* A grid drawn as an ASCII picture, one line per row, top row first.
 * Legend:   '#' blocked (remembered cost 1)   '.' open ground, cost 2
 *           '=' road, cost 1                  '1'..'9' that cost
 * Rows end with "\n" or "\r\n"; one final line ending is optional. Every
 * row must have the same length. Anything else is an error naming the
 * line and column (SP_GRID_E_MAP_CHAR, SP_GRID_E_MAP_RAGGED). `len` is
 * the text's length in bytes (a NUL inside is an unknown character). */
SP_API SpStatus sp_grid_new_ascii(const char *text, size_t len,
                                  SpAllocator alloc, SpGrid **out,
                                  SpGridError *err);

SP_API void sp_grid_free(SpGrid *g);

SP_API int sp_grid_width(const SpGrid *g);
SP_API int sp_grid_height(const SpGrid *g);
SP_API size_t sp_grid_size_bytes(const SpGrid *g);
SP_API int sp_grid_contains(const SpGrid *g, int x, int y);
/* The cell's (remembered) cost, blocked or not; 0 outside the grid. */
SP_API double sp_grid_cost(const SpGrid *g, int x, int y);
/* 1 when blocked, 0 when open; outside the grid counts as blocked. */
SP_API int sp_grid_is_blocked(const SpGrid *g, int x, int y);
/* The cheapest cost among open cells (0 when every cell is blocked). A*
 * scales its heuristic by it. Kept exact by every setter: O(1), except
 * when the last open cell at the minimum rises or closes, which rescans
 * the grid once (a bulk setter rescans at most once). */
SP_API double sp_grid_min_cost(const SpGrid *g);

/* Setters. Each validates everything first and changes nothing on error.
 * None allocates. Do not call them while a search runs on the grid. */
SP_API SpStatus sp_grid_set_cost(SpGrid *g, int x, int y, double cost,
                                 SpGridError *err);
SP_API SpStatus sp_grid_set_blocked(SpGrid *g, int x, int y, int blocked,
                                    SpGridError *err);
/* Rectangles: x, y is the top-left corner, w x h the size (0 is a no-op);
 * the rectangle must lie inside the grid. fill_cost keeps blocked flags. */
SP_API SpStatus sp_grid_fill_cost(SpGrid *g, int x, int y, int w, int h,
                                  double cost, SpGridError *err);
SP_API SpStatus sp_grid_fill_blocked(SpGrid *g, int x, int y, int w, int h,
                                     int blocked, SpGridError *err);
/* Bulk: `values` holds w*h numbers, row by row. A cost opens the cell with
 * that cost; SP_GRID_BLOCKED blocks it (its remembered cost is kept). */
SP_API SpStatus sp_grid_set_costs(SpGrid *g, int x, int y, int w, int h,
                                  const double *values, SpGridError *err);
/* Paints an ASCII picture (legend above) with its top-left cell at (x, y);
 * '#' blocks and keeps the cost, every other symbol opens with its cost. */
SP_API SpStatus sp_grid_set_ascii(SpGrid *g, int x, int y, const char *text,
                                  size_t len, SpGridError *err);

/* ------------------------------------------------------------------ */
/* Search                                                             */
/* ------------------------------------------------------------------ */

/* A* uses the octile distance times sp_grid_min_cost as its heuristic:
 * admissible and consistent, so its paths are as cheap as Dijkstra's and
 * it closes no more cells (the tests check both on thousands of random
 * grids). Among cells of equal f = g + h it expands
 * the one with the larger g first (on open ground of one cost it walks
 * straight along a cheapest path). The heuristic only knows the cheapest
 * cost: the more a path's cost exceeds that times its length, the more
 * cells A* must close before it can be sure. */
typedef enum SpGridAlgorithm {
  SP_GRID_ASTAR = 0, /* octile heuristic scaled by sp_grid_min_cost */
  SP_GRID_DIJKSTRA
} SpGridAlgorithm;

/* "astar" or "dijkstra" (NULL for an unknown value). */
SP_API const char *sp_grid_algorithm_name(SpGridAlgorithm a);

typedef struct SpGridQuery {
  SpGridAlgorithm algorithm;
  int allow_corner_cutting; /* nonzero: diagonals may pass blocked cells */
} SpGridQuery;

typedef struct SpGridResult {
  double cost;        /* total cost of the path (0 when start == target) */
  size_t length;      /* cells on the path, both ends included; 0: none */
  size_t expanded;    /* cells closed by the search */
  size_t pushed;      /* open-list insertions, re-insertions included */
  size_t heap_peak;   /* largest open-list size during the search (the
                         binary heap plus one entry held beside it) */
  size_t compactions; /* times a full open list dropped stale entries */
} SpGridResult;

typedef struct SpGridWorkspaceOptions {
  /* Open-list entries (16 bytes each). 0 means width*height + 8, which
   * can never run out. A smaller value saves memory on huge maps where
   * searches stay local; a search that needs more fails cleanly with
   * SP_GRID_E_HEAP_FULL. */
  size_t heap_capacity;
} SpGridWorkspaceOptions;

/* Scratch space for searches on grids of g's size (any grid of that
 * size). Holds per-cell annotations (best cost, closed flag, 3-bit parent
 * direction; 20 bytes per cell, border included) invalidated by a
 * generation counter, and the open list. One workspace per thread; after
 * this call, searches allocate nothing. `opts` may be NULL. */
SP_API SpStatus sp_grid_workspace_new(const SpGrid *g,
                                      const SpGridWorkspaceOptions *opts,
                                      SpAllocator alloc, SpGridWorkspace **out,
                                      SpGridError *err);
SP_API void sp_grid_workspace_free(SpGridWorkspace *ws);
SP_API size_t sp_grid_workspace_size_bytes(const SpGridWorkspace *ws);

/* Finds a cheapest path from start to target. `q` may be NULL (A*, no
 * corner cutting). Any number of threads may search one grid at once,
 * each with its own workspace, while nobody changes the grid.
 *   SP_OK         *res filled; the path is read with sp_grid_workspace_path
 *   SP_NO_PLAN    SP_GRID_E_UNREACHABLE (res->expanded still counts)
 *   SP_ERR_STATE  SP_GRID_E_RANGE or SP_GRID_E_BLOCKED for an endpoint
 *   SP_ERR_INVALID, SP_ERR_MEMORY as described in SpGridError.
 * `res` may be NULL. */
SP_API SpStatus sp_grid_find_path(const SpGrid *g, SpGridWorkspace *ws,
                                  SpGridPoint start, SpGridPoint target,
                                  const SpGridQuery *q, SpGridResult *res,
                                  SpGridError *err);

/* Copies the path of the last successful search on `ws` (start first,
 * target last) into buf[0..cap-1] and returns its full length, like
 * snprintf: call with cap 0 to size a buffer. Returns 0 after a failed
 * search. The path stays readable until the next search on `ws`. */
SP_API size_t sp_grid_workspace_path(const SpGridWorkspace *ws,
                                     SpGridPoint *buf, size_t cap);

/* ------------------------------------------------------------------ */
/* Distance fields                                                    */
/* ------------------------------------------------------------------ */
/* A distance field holds, for every cell, the cost of a cheapest path to
 * one target: one Dijkstra over the whole grid, after which any number of
 * walkers go downhill in O(1) per cell. Fields use the grid's padded
 * layout (a one-cell border all round): sp_grid_field_cells entries,
 * cell (x, y) at sp_grid_field_index; unreachable cells and the border
 * hold INFINITY. */

/* Changes (grows) whenever a setter changes cells: a field computed at
 * another version may be stale. */
SP_API uint64_t sp_grid_version(const SpGrid *g);
SP_API size_t sp_grid_field_cells(const SpGrid *g);
SP_API size_t sp_grid_field_index(const SpGrid *g, int x, int y);
/* Bytes of scratch sp_grid_distance_field needs (its open list). */
SP_API size_t sp_grid_field_scratch_bytes(const SpGrid *g);
/* Fills `field` (sp_grid_field_cells floats) for `target`; q may be NULL
 * (no corner cutting). Allocates nothing. SP_ERR_STATE when the target is
 * outside the grid or blocked. */
SP_API SpStatus sp_grid_distance_field(const SpGrid *g, SpGridPoint target,
                                       const SpGridQuery *q, float *field,
                                       void *scratch, SpGridError *err);
/* 1 when a move from padded cell `cell` in direction d (0..7: E, W, S,
 * N, SE, SW, NE, NW) is allowed, and the index offset of that move. */
SP_API int sp_grid_field_step(const SpGrid *g, int allow_corner_cutting,
                              size_t cell, int d);
SP_API ptrdiff_t sp_grid_field_offset(const SpGrid *g, int d);

#ifdef __cplusplus
}
#endif

#endif
