// How far the eval's shares would move on another set of sessions like these (scripts/eval.mjs):
// the sessions are drawn again with replacement, each source's sessions of each outcome as many
// times as there are, and each resample's shares are counted as the eval counts them. The spread
// of the resamples is that of a set of the same size from the same agents, such as the half of the
// shared set this project does not see.
import { rng } from '../__test__/oracle.mjs'

/** The value below which `share` of the sorted `values` lie (nearest rank). */
function percentile(values, share) {
  return values[Math.min(values.length - 1, Math.floor(share * values.length))]
}

/**
 * `sessions`: per detector, the same sessions in the same order, each `{ outcome, first }` (`first`
 * null: not reminded); `strata`: per session, the group it is drawn again within (its source).
 * Returns per detector and outcome the interval `[low, high]` that holds 90 % of the resamples'
 * reminded shares (null where the outcome has no session), and per detector the fraction of
 * resamples for which `holds(shares, detector)` is true, `shares[detector][outcome]` being that
 * resample's shares.
 */
export function spread(sessions, strata, { outcomes, holds = () => false, rounds = 1000, seed = 1 }) {
  const next = rng(seed)
  const groups = new Map()
  sessions[0].forEach(({ outcome }, j) => {
    if (!outcomes.includes(outcome)) return
    const group = `${strata[j]}\n${outcome}`
    if (!groups.has(group)) groups.set(group, [])
    groups.get(group).push(j)
  })
  // Each outcome's sessions are drawn within their groups, so every resample has as many of them.
  const totals = Object.fromEntries(outcomes.map((o) => [o, sessions[0].filter(({ outcome }) => outcome === o).length]))
  const drawn = sessions.map(() => Object.fromEntries(outcomes.map((outcome) => [outcome, []])))
  const held = sessions.map(() => 0)
  for (let round = 0; round < rounds; round++) {
    const reminded = sessions.map(() => Object.fromEntries(outcomes.map((outcome) => [outcome, 0])))
    for (const members of groups.values()) {
      for (let k = 0; k < members.length; k++) {
        const j = members[Math.floor(next() * members.length)]
        sessions.forEach((list, i) => {
          if (list[j].first !== null) reminded[i][list[j].outcome]++
        })
      }
    }
    const shares = reminded.map((byOutcome) => Object.fromEntries(outcomes.map((o) => [o, totals[o] ? byOutcome[o] / totals[o] : null])))
    shares.forEach((byOutcome, i) => {
      for (const o of outcomes) if (totals[o]) drawn[i][o].push(byOutcome[o])
      if (holds(shares, i)) held[i]++
    })
  }
  const intervals = drawn.map((byOutcome) => Object.fromEntries(outcomes.map((o) => {
    const values = byOutcome[o].sort((a, b) => a - b)
    return [o, values.length ? [percentile(values, 0.05), percentile(values, 0.95)] : null]
  })))
  return { intervals, held: held.map((count) => count / rounds) }
}
