/* saspu_save.h: public C API of saved worlds: saving a world and its crowds, loading a save back, checking it, migrating a save made before a patch. */
#ifndef saspu_save_h
#define saspu_save_h

#include <stddef.h>
#include <stdint.h>

#include "saspu.h"
#include "saspu_agents.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Save and load                                                      */
/* ------------------------------------------------------------------ */
/* A save holds what the executor needs to resume exactly: the world's
 * reservations and which distance fields were cached (not their
 * contents), and per crowd its clock, goals, counters and every agent's
 * record (state, goal, plan, step cursor and progress, position, target,
 * draw counter, cooldown, refusals, flags), the despawned slots and their
 * generations, and the walks to other agents. It does not hold what the
 * game code builds: the grid, places and kinds, domains, action
 * behaviours and crowd options; it keeps fingerprints of them and a load
 * refuses a world that differs. Plan caches and fields rebuild. */
#define SP_SAVE_VERSION 10
/* Format 6 adds the names (places, facts, and per crowd its domain's
 * variables, values and actions, and its goals) that a load under
 * migration maps by; format 5 saves still load, without migration.
 * Format 7 adds the walks to other agents (chases, with their paths);
 * a format 5 or 6 save loads with none.
 * Format 8 adds the world's queue of agents waiting for full places and
 * each crowd's agents' own goal priorities; an older save loads with
 * none (waiters queue again in the order they next retry).
 * Format 9 keeps names over 254 bytes whole (format 6 to 8 cut them at
 * 255), and adds each crowd's movement (saspu's grid or the engine) to its
 * options' fingerprint: an older save loads into a crowd of either
 * movement, and the load refuses an agent in a phase the crowd's
 * movement cannot have. */

/* The names a save carries beyond the domains' own (either NULL: places
 * are called "<kind>#<id>", goals "goal <index + 1>"): places[p] for
 * every place, goals[k][g] for goal index g of crowds[k] (goals[k] may be
 * NULL). Names are kept whole, however long. */
typedef struct SpSaveNames {
  const char *const *places;
  const char *const *const *goals;
} SpSaveNames;

/* Writes w and crowds[0..count-1] (every crowd living in w, in a fixed
 * order) and `extra` (the caller's own bytes, up to 4 GiB, or NULL) to
 * *out (*len bytes, allocated with the world's allocator: release it
 * with sp_world_save_free). Call between updates. SP_ERR_STATE when a
 * crowd lives elsewhere or the reservations show a crowd is missing;
 * SP_ERR_MEMORY. */
SP_API SpStatus sp_world_save(const SpWorld *w, const SpCrowd *const *crowds,
                              size_t count, const void *extra, size_t extra_len,
                              void **out, size_t *len, SpError *err);
SP_API void sp_world_save_free(const SpWorld *w, void *buf, size_t len);
/* sp_world_save with the names of places and goals (names may be NULL). */
SP_API SpStatus sp_world_save_named(const SpWorld *w,
                                    const SpCrowd *const *crowds, size_t count,
                                    const SpSaveNames *names, const void *extra,
                                    size_t extra_len, void **out, size_t *len,
                                    SpError *err);

/* Reads a save back onto a world built the same way (same grid, places,
 * crowds in the same order with the same domains, behaviours and
 * options; capacities large enough): the whole input is validated before
 * anything changes, so truncated, corrupted, wrong-version or mismatched
 * input gives SP_ERR_INVALID with what and where (for instance "saved
 * world: truncated at byte 1234 in crowd 2 'bandits' agent 17") and
 * leaves everything as it was. On success the crowds' goals are the
 * saved ones, their events of the last frame are gone (event count 0),
 * and the fields that were cached are computed again. *extra /
 * *extra_len (either may be NULL) point at the caller's bytes inside
 * `data`. SP_ERR_MEMORY (nothing changed) when the refusal words or a
 * scratch count cannot be allocated. */
SP_API SpStatus sp_world_load(SpWorld *w, SpCrowd *const *crowds, size_t count,
                              const void *data, size_t len, const void **extra,
                              size_t *extra_len, SpError *err);
/* The same checks without loading (to read the extra bytes first). */
SP_API SpStatus sp_world_load_check(const SpWorld *w,
                                    const SpCrowd *const *crowds, size_t count,
                                    const void *data, size_t len,
                                    const void **extra, size_t *extra_len,
                                    SpError *err);
/* sp_world_load_check that also tells, per crowd k, how many agents and
 * goals the save holds (agents[k], goals[k]: count entries each), so the
 * caller can check its own part against them before loading. */
SP_API SpStatus sp_world_load_counts(const SpWorld *w,
                                     const SpCrowd *const *crowds, size_t count,
                                     const void *data, size_t len,
                                     const void **extra, size_t *extra_len,
                                     size_t *agents, int *goals, SpError *err);
/* sp_world_load_counts that also calls despawned(ud, k, slot) for every
 * despawned slot of crowd k (0-based) the save holds, as the check reads
 * it, so the caller can refuse its own records of those slots before
 * anything is loaded. The calls of a save that fails are not all made. */
SP_API SpStatus sp_world_load_probe(
    const SpWorld *w, const SpCrowd *const *crowds, size_t count,
    const void *data, size_t len, const void **extra, size_t *extra_len,
    size_t *agents, int *goals,
    void (*despawned)(void *ud, size_t crowd, uint32_t slot), void *ud,
    SpError *err);

/* ---- loading a save made before a patch (migrate.c) ------------------ */
/* A value to use where a saved one no longer exists, or for a variable
 * the save lacks: variable and value by name, in every crowd whose
 * domain has that variable. */
typedef struct SpMigrateDefault {
  const char *variable, *value;
} SpMigrateDefault;
/* The outcome of sp_world_migrate, allocated with the world's allocator
 * (release with sp_migration_free): a save this world loads as it is,
 * the report (lines ending in '\n': what changed, was mapped, was
 * dropped) and, per crowd k, its saved actions' new ids in
 * action_map[map_at[k] .. map_at[k + 1]) (-1: the action is gone or
 * changed, so plans using it were dropped). */
typedef struct SpMigration {
  void *save;
  size_t save_len;
  char *report;
  size_t report_len, report_cap;
  int32_t *action_map;
  size_t *map_at; /* count + 1 */
  size_t map_count;
  size_t map_bytes;
} SpMigration;
/* Rewrites a format-6 save (data, len) for w and crowds[0..count-1] (the
 * same grid, the crowds in the same order) whose domains, behaviours and
 * places may have changed since: variables and values map by name, places
 * by name, facts by name; goals stay the saved ones (their conditions
 * mapped); an agent whose plan uses an action that changed or is gone, or
 * whose target place moved or is gone, or whose state took a default,
 * drops its plan and replans at the next update (SP_EV_REPLANNED with
 * SP_REASON_MIGRATED); an idle agent looks for a goal again. Slots and
 * generations are kept, so a walk to another agent goes on (it ends with
 * its walker's dropped plan, or when the crowd's engine moves it now).
 * Refused (SP_ERR_INVALID, nothing written) when a value some agent or
 * goal holds no longer exists and `defaults` names none for its variable
 * (the message names the value and how many agents hold it), when a variable
 * is new and has no default, when the grid or the crowd count differs, or
 * when the save is older than format 6 or malformed. `names` are this
 * world's names (as for sp_world_save_named). The result still goes through
 * sp_world_load's checks. */
SP_API SpStatus sp_world_migrate(const SpWorld *w, const SpCrowd *const *crowds,
                                 size_t count, const SpSaveNames *names,
                                 const SpMigrateDefault *defaults,
                                 size_t ndefaults, const void *data, size_t len,
                                 SpMigration *out, SpError *err);
SP_API void sp_migration_free(const SpWorld *w, SpMigration *m);

/* ---- a save's header without a world -------------------------------- */
typedef struct SpSaveInfo {
  uint32_t version;
  uint32_t places, facts, crowds; /* places and facts: 0 before format 6 */
  uint64_t payload;
} SpSaveInfo;
/* Per crowd k of a format-6 save: its domain's name (name_len bytes
 * inside data, not NUL-terminated) and its counts. */
typedef struct SpSaveCrowdInfo {
  const char *name;
  size_t name_len;
  uint64_t agents;
  uint32_t variables, actions, goals;
} SpSaveCrowdInfo;
/* Checks the header and checksum, and for format 6 the names block
 * (bounded), and fills *info; crowd k (0-based) of it into *crowd when
 * crowd is not NULL and k < info->crowds (format 6 only). SP_ERR_INVALID
 * with what is wrong. Allocates nothing. */
SP_API SpStatus sp_save_info(const void *data, size_t len, size_t k,
                             SpSaveInfo *info, SpSaveCrowdInfo *crowd,
                             SpError *err);
/* The layout's constants (for tools that walk a save's bytes). */
typedef struct SpSaveLayout {
  int version, oldest; /* written; the oldest read */
  int header_bytes;    /* before the checksummed payload */
  int agent_bytes;     /* an agent record's fixed part */
  int counters;        /* u64 counters per crowd */
  int name_max;        /* the longest name written with a u8 length (a
                          longer one, whole: u8 255, then a u32 length) */
} SpSaveLayout;
SP_API void sp_save_layout(SpSaveLayout *out);

#ifdef __cplusplus
}
#endif

#endif
