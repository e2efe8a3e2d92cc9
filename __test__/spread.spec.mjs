// The eval's resampling (scripts/spread.mjs), on sessions made here: each source's sessions of each
// outcome are drawn again as many times as there are, the intervals hold the resamples' shares, the
// target is counted per detector, and a seed gives the same resamples every time.
import test from 'ava'
import { spread } from '../scripts/spread.mjs'

const OUTCOMES = ['budget', 'resolved']
/** `n` sessions of `outcome`, the first `reminded` of them reminded. */
const sessions = (outcome, n, reminded) => Array.from({ length: n }, (_, i) => ({ outcome, first: i < reminded ? 1 : null }))

test('sessions are drawn again within their source and outcome: a source all reminded and one never stay half and half', (t) => {
  const list = [...sessions('budget', 5, 5), ...sessions('budget', 5, 0), ...sessions('resolved', 4, 1)]
  const strata = [...Array(5).fill('a'), ...Array(5).fill('b'), ...Array(4).fill('a')]
  const { intervals } = spread([list], strata, { outcomes: OUTCOMES })
  t.deepEqual(intervals[0].budget, [0.5, 0.5])
  // One of four resolved sessions reminded: resamples from none to all of them, mostly in between.
  const [low, high] = intervals[0].resolved
  t.true(low < 0.25 && high > 0.25, `${low}–${high}`)
})

test('drawn from one source instead, the same sessions spread', (t) => {
  const list = [...sessions('budget', 5, 5), ...sessions('budget', 5, 0)]
  const [low, high] = spread([list], Array(10).fill('a'), { outcomes: OUTCOMES }).intervals[0].budget
  t.true(low < 0.5 && high > 0.5, `${low}–${high}`)
})

test('an outcome without sessions has no interval, and an outcome not asked for is left out', (t) => {
  const list = [...sessions('budget', 3, 1), ...sessions('failed', 3, 3)]
  const { intervals } = spread([list], Array(6).fill('a'), { outcomes: OUTCOMES })
  t.is(intervals[0].resolved, null)
  t.false('failed' in intervals[0])
})

test('the target is counted per detector, on the same resamples for all', (t) => {
  // Detector 0 reminds in no session, detector 1 in every budget one, detector 2 in every one.
  const budget = sessions('budget', 6, 0)
  const resolved = sessions('resolved', 6, 0)
  const all = [
    [...budget, ...resolved],
    [...sessions('budget', 6, 6), ...resolved],
    [...sessions('budget', 6, 6), ...sessions('resolved', 6, 6)],
  ]
  const holds = (shares, i) => shares[i].budget > shares[0].budget && shares[i].resolved <= 0.01
  const { held } = spread(all, Array(12).fill('a'), { outcomes: OUTCOMES, holds, rounds: 50 })
  t.deepEqual(held, [0, 1, 0])
})

test('the same seed gives the same spread, and the rounds are counted', (t) => {
  const list = [...sessions('budget', 20, 7), ...sessions('resolved', 20, 2)]
  const strata = Array(40).fill('a')
  const once = spread([list], strata, { outcomes: OUTCOMES, seed: 3, holds: (s) => s[0].budget >= 0.35, rounds: 200 })
  t.deepEqual(spread([list], strata, { outcomes: OUTCOMES, seed: 3, holds: (s) => s[0].budget >= 0.35, rounds: 200 }), once)
  // About half the resamples of a 7-in-20 share reach 0.35, and the count is a multiple of 1/200.
  t.true(once.held[0] > 0.2 && once.held[0] < 0.8, String(once.held[0]))
  t.is(Math.round(once.held[0] * 200), once.held[0] * 200)
})
