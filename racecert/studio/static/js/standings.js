// The race standings as they stand after k car-turns of the replay, as the replay page of
// `racecert race -o race.html` builds them (racecert.race.replay.standings_at): before the
// last step only the cars that have finished by then are placed, first to finish first;
// every other car follows in car order as racing (its moves so far); after the last step
// it is the final table (racecert.race.standings: finishers, then the cars that did not
// finish: the move limit ended their race).

export function standingsAt(result, k) {
  const steps = result.steps, cars = result.race.cars, laps = result.race.laps;
  const n = steps.length;
  const lapText = (done) => `${done}/${laps}`;
  if (k >= n) {
    const rows = result.standings.rows.map((r) => {
      const car = Number(r[1]), c = cars[car];
      return { car, place: c.finished ? r[0] : "–", driver: c.driver, moves: String(c.moves),
        laps: lapText(c.laps_completed), status: c.finished ? "finished" : "did not finish",
        state: c.finished ? "finished" : "dnf" };
    });
    return { caption: "Final standings", rows };
  }
  const done = result.finishers.filter((f) => f.step < k);
  const placed = new Set(done.map((f) => f.car));
  const played = cars.map(() => 0);
  for (let j = 0; j < k; j++) played[steps[j].car]++;
  const rows = done.map((f, i) => ({ car: f.car, place: String(i + 1), driver: cars[f.car].driver,
    moves: String(f.moves), laps: lapText(laps), status: "finished", state: "finished" }));
  cars.forEach((c, i) => {
    if (placed.has(i)) return;
    rows.push({ car: i, place: "–", driver: c.driver, moves: String(played[i]), laps: "",
      status: "racing", state: "racing" });
  });
  return { caption: `Standings after step ${k} of ${n}`, rows };
}
