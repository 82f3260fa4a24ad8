"""The paragraphs the report's index prints under each plot: what the plot
shows, with the run's own numbers, and which knob to turn next.

One builder per section, called by the plotting modules (laws, pools, sweep,
bench, capstone) with the perflab output the plot drew. Builders only read
and format: they never run perflab or draw, so a change of wording stays
out of the plotting code and a change of drawing out of the prose.
"""

from data import field, param
from section import fmt


# ---- laws.py ----

def latency_spectrum(doc):
    n, mean = field(doc, "samples"), field(doc, "mean_ms")
    slow, stall = param(doc, "slow_share"), param(doc, "stall_share")
    return (f"`perflab sim latency-mixture` draws {n:,} latencies: "
            f"{100 * (1 - slow - stall):g} % on a fast path near 15 ms, {100 * slow:g} % on a "
            f"slow path (120-200 ms) and {100 * stall:g} % stalled (0.8-2 s). "
            f"The mean, {fmt(mean)} ms, is above the p95 ({fmt(field(doc, 'p95_ms'))} ms): more "
            f"than 95 % of requests are faster than the 'average' one. The "
            f"{field(doc, 'above_500ms'):,} requests above 500 ms alone add "
            f"{fmt(field(doc, 'tail_mean_contribution_ms'))} ms to it; they cannot move p50 "
            f"({fmt(field(doc, 'p50_ms'))} ms). p99 is {fmt(field(doc, 'p99_ms'))} ms "
            f"and p99.9 {fmt(field(doc, 'p999_ms'))} ms. Next: `perflab sim latency-mixture "
            f"--set stall_share=0.001` and watch the mean and p99.9 move while p50 stays.")


def latency_histogram(doc, modes):
    n, mean = field(doc, "samples"), field(doc, "mean_ms")
    return (f"The same {n:,} latencies on logarithmic bins: three separate humps, "
            f"{modes[0]['count']:,} requests below 50 ms, {modes[1]['count']:,} between 50 and "
            f"500 ms and {modes[2]['count']:,} above 500 ms, with empty bins between them. "
            f"The dashed line is the mean ({fmt(mean)} ms): the two small humps on the right "
            f"drag it to the far edge of the big one, past most requests. A percentile from one "
            f"mode says nothing about the others. Next: `perflab sim latency-mixture --set slow_share=0.1` "
            f"makes the middle hump carry the p95.")


def coordinated_omission(doc, clients):
    ca, ci, op = clients["closed-actual"], clients["closed-intended"], clients["open"]
    return (f"`perflab sim coordinated-omission`: a client that should send a request every "
            f"{1000 / param(doc, 'rate_per_s'):g} ms ({field(doc, 'target_requests'):,} in all) "
            f"against a server that freezes for {param(doc, 'freeze_ms') / 1000:g} s. "
            f"Timed from its actual sends, the closed loop records {ca['samples']:,} samples "
            f"({field(doc, 'never_issued'):,} were never sent) and a p99 of {fmt(ca['p99_ms'])} ms: "
            f"the freeze is one slow sample. Timed from the schedule the same client reports a "
            f"p99 of {fmt(ci['p99_ms'])} ms; an open loop that keeps sending reports "
            f"{fmt(op['p99_ms'])} ms. Next: `perflab sim coordinated-omission --set freeze_ms=1000` "
            f"(a shorter stall) or `--set rate_per_s=1000` (more requests stuck behind it).")


def littles_law(doc, rows, services, sizing):
    return (f"`perflab sim littles-law` runs {len(rows)} open-loop systems ({len(services)} service "
            f"times × {len(rows) // len(services)} rates) and samples how many requests are "
            f"in flight. Every point lands on the line: the worst gap between L and λ × W is "
            f"{fmt(field(doc, 'worst_error_pct'), 3)} %. At {fmt(sizing['rate_per_s'], 0)} req/s "
            f"holding a connection {fmt(sizing['hold_ms'], 0)} ms, L = {fmt(sizing['l_sampled'])}: "
            f"a pool of {sizing['with_headroom']} leaves headroom. Next: `perflab sim littles-law "
            f"--set arrivals=poisson --set service=exp` (the law still holds; only the samples get noisy).")


def usl(doc, rows, peak_n, peak_capacity):
    last = rows[-1]
    return (f"`perflab sim usl` runs fork-join workers with a serial section and pairwise "
            f"coherency, and fits the USL to the simulated points (R² = "
            f"{field(doc, 'r_squared'):.5f}). Capacity peaks at N = {peak_n} "
            f"(C = {fmt(peak_capacity, 2)}) and falls to {fmt(last['capacity'], 2)} at N = {last['n']}: past "
            f"the peak, more workers cost throughput. Amdahl's curve, with the same serial fraction "
            f"and no coherency cost, only flattens. The curves come from `perflab models usl` and "
            f"`perflab models amdahl` with the fitted σ. Next: `perflab sim usl --set kappa=0.0005` "
            f"(cheaper coherency moves the peak right).")


def hockey_stick(doc, rows):
    one = [r for r in rows if r["servers"] == 1]
    four = [r for r in rows if r["servers"] != 1]
    at = {r["rho"]: r for r in one}
    # Each point runs longer the nearer it is to the wall: its own count.
    fewest = min(int(r["customers"]) for r in rows)
    most = max(int(r["customers"]) for r in rows)
    return (f"`perflab sim hockey-stick` ({param(doc, 'service_ms'):g} ms service, "
            f"{fewest:,} to {most:,} customers per point, the most nearest the wall): with one "
            f"server the mean time in system is {fmt(at[0.5]['sim_response_ms'])} ms at ρ = 0.5, "
            f"{fmt(at[0.8]['sim_response_ms'])} ms at 0.8 and {fmt(at[0.95]['sim_response_ms'])} ms "
            f"at 0.95 (analytic {fmt(at[0.95]['analytic_response_ms'])} ms): flat, then a wall. "
            f"Four servers at the same utilisation bend later ({fmt(four[-1]['sim_response_ms'])} ms "
            f"at {four[-1]['rho']}). Near ρ = 1 a run of this length undershoots the analytic mean "
            f"(long busy periods are rare and heavy). Next: `perflab sim hockey-stick --set "
            f"servers=1,16` or `--set customers=2000000` for the points near the wall.")


# ---- pools.py ----

def thread_pool(by, virtual, clients):
    return (f"`perflab sim thread-pool` with {clients} clients that never think: 10 threads serve "
            f"{fmt(field(by[10], 'throughput_per_s'), 0)} req/s at {fmt(field(by[10], 'mean_ms'), 0)} ms, "
            f"50 threads {fmt(field(by[50], 'throughput_per_s'), 0)} req/s at "
            f"{fmt(field(by[50], 'mean_ms'), 0)} ms, 200 threads "
            f"{fmt(field(by[200], 'throughput_per_s'), 0)} req/s at {fmt(field(by[200], 'mean_ms'), 0)} ms: "
            f"throughput is threads / handler time and the other clients wait in the accept queue. "
            f"Virtual threads remove the cap and hit the next one, the CPU: "
            f"{fmt(field(virtual, 'throughput_per_s'), 0)} req/s at {fmt(field(virtual, 'mean_ms'), 1)} ms "
            f"on {field(virtual, 'cpu_cores')} cores. Next: `perflab sim thread-pool --set threads=virtual "
            f"--set cores=4` (the CPU ceiling drops), or `--set db_pool=10` (the queue moves to the pool).")


def pool_starvation(doc, summary, timeline):
    worst = summary[-1]
    return (f"`perflab sim pool-starvation`: open Poisson arrivals against a pool of "
            f"{param(doc, 'pool'):g} held {param(doc, 'hold_ms'):g} ms, "
            f"so the pool serves at most {fmt(field(doc, 'ceiling_per_s'), 0)} req/s. Below that the "
            f"queue stays near zero; at the ceiling it wanders (max {summary[-2]['max_pending']:,} "
            f"pending); past it, pending grows by the excess every second. At "
            f"{fmt(worst['offered_per_s'], 0)} req/s the first {param(doc, 'timeout_ms') / 1000:g} s "
            f"timeout fires at "
            f"{fmt(worst['first_timeout_s'])} s and {worst['timeouts']:,} requests time out in "
            f"{fmt(timeline[-1]['t_s'], 0)} s. Next: `perflab sim pool-starvation --set pool=15` "
            f"(raise the ceiling) or `--set timeout_ms=1000` (fail fast instead of queueing 30 s).")


def keepalive_race(first, client_timeouts):
    worst = max(first, key=lambda r: r["stale_pct"])
    safe = min(r["server_keepalive_ms"] for r in first if r["stale_sends"] == 0)
    return (f"`perflab sim keepalive-race`: a load balancer reuses idle connections for up to "
            f"its idle timeout; the server closes them after its own keep-alive timeout. While the "
            f"server gives up first, a reuse can land on a connection the server just closed: the "
            f"sporadic 502 ({fmt(worst['stale_pct'])} % of requests at {worst['rate_per_s']:g} req/s with "
            f"a {worst['server_keepalive_ms']:,} ms server timeout). With a {client_timeouts[0]:,} ms client "
            f"timeout the failures stop at a server timeout of {safe:,} ms; halve the client's "
            f"timeout (right) and the edge moves with it. Next: `perflab sim keepalive-race --set "
            f"one_way_ms=50` (network delay widens the race).")


# ---- sweep.py ----

def mmc_sweep(doc, rows, replications, settings):
    inside = sum(1 for r in rows if abs(r[3] - r[5]) <= r[4])
    last = rows[-1]
    return (f"`perflab sweep mmc` runs {len(rows)} arrival rates × {replications} replications "
            f"(seeds {doc['seed']} + k, {int(settings['customers']):,} customers each after "
            f"{int(settings['warmup_customers']):,} warm-up) on {settings['servers']} servers "
            f"that each serve 1 customer/s. The band is the 95 % confidence interval of the mean "
            f"wait across replications; Erlang C lies inside it at {inside} of {len(rows)} "
            f"points. At ρ = {fmt(last[0], 2)} the simulated wait is {fmt(last[3], 3)} ± "
            f"{fmt(last[4], 3)} s against {fmt(last[5], 3)} s: the band widens as the queue nears "
            f"saturation, where runs disagree most. Next: `perflab sweep mmc --set service=det` "
            f"(deterministic service: the wait falls below Erlang C) or more `--replications` for a narrower band.")


# ---- bench.py ----

def bench_ratios(doc, rows):
    best = max(rows, key=lambda r: r[4])
    mode = doc.get("mode", "?")
    return (f"Each bar is one before/after pair from `tools/lab bench` ({mode} mode, medians "
            f"of that run on that machine, so they change from run to run): {len(rows)} pairs, the "
            f"largest {best[1]} at x{fmt(best[4])}. A bar left of 1 means the 'after' was slower. "
            f"Next: `tools/lab bench --filter REGEX` for one family, or `tools/bench-commits` to "
            f"compare two commits with a significance test.")


# ---- capstone.py ----

def capstone_rps(rig, steps, cs, names, gen, bound, scan_note):
    ours, theirs = [s["rps"] for s in steps], [cs[n]["rps"] for n in names]
    drop = steps[names.index("keep-alive")]
    return (f"Median RPS of {rig.repeats} repeats per step with {rig.clients} clients that never "
            f"think. perflab goes "
            f"from {fmt(ours[0], 0)} to {fmt(ours[-1], 0)} req/s (x{fmt(ours[-1] / ours[0])}), the "
            f"case study from {fmt(theirs[0], 0)} to {fmt(theirs[-1], 0)} (x{fmt(theirs[-1] / theirs[0])}). "
            f"At keep-alive perflab serves {fmt(drop['rps'], 0)} req/s and the case study "
            f"{fmt(cs['keep-alive']['rps'], 0)} (factors x{fmt(drop['factor'], 2)} and "
            f"x{fmt(drop['case_study_factor'], 2)}): reusing connections exposes the Nagle + "
            f"delayed-ACK stall until tcp-nodelay. {scan_note}The shape, not the height, is what carries over. "
            + (f"At {', '.join(names[k] for k in bound)} the simulated load generator is at least "
               f"{min(gen[names[k]] for k in bound):.0f} % busy: those bars measure the rig, not "
               f"the service (the sensitivity plot agrees). " if bound else "")
            + "Next: `perflab capstone --calibration fixtures/calibration/seed-h2.json` (the case "
            "study's own costs) or `--db-round-trip-ms 0.5` (a database across the network).")


def capstone_scan_note(ours_us, theirs_us):
    """Why the baseline's height differs: this calibration's scan against the seed's."""
    return (f"The baselines differ mostly by the table scan: {fmt(ours_us / 1000)} ms per query in "
            f"this calibration against the case study's {fmt(theirs_us / 1000)} ms. ")


def capstone_p99(rig, steps, cs, names):
    a, b = steps[0], steps[-1]
    return (f"Closed loop, p99 falls from {fmt(a['p99_ms'])} to {fmt(b['p99_ms'])} ms "
            f"(x{fmt(a['p99_ms'] / b['p99_ms'])} lower; case study {fmt(cs[names[0]]['p99_ms'])} → "
            f"{fmt(cs[names[-1]]['p99_ms'])} ms). The open loop at {rig.open_rate_per_s:g} req/s "
            f"sees the service "
            f"without the clients' own queue: {fmt(a['open_p99_ms'])} → {fmt(b['open_p99_ms'])} ms. "
            f"In the closed loop the mean latency is clients / throughput, so p99 mirrors the RPS "
            f"plot; the open-loop p99 is the service's own tail ({fmt(steps[1]['open_p99_ms'])} ms "
            f"after {names[1]}, {fmt(b['open_p99_ms'])} ms at {names[-1]}). Next: `perflab capstone --steps baseline,index,keep-alive,tcp-nodelay` "
            f"to isolate the Nagle stall, which shows in both loops.")


def capstone_cost(fields, ours, theirs):
    f = fields
    return (f"$/1M = instance $/h ÷ ({fmt(f['target_utilisation'], 1)} × RPS × 3,600) × 10⁶ at "
            f"example prices (${f['usd_per_vcpu_hour']:g} per vCPU-hour, ${f['usd_per_gib_hour']:g} "
            f"per GiB-hour): 8 vCPU until right-size, then 4. perflab: ${fmt(ours[0], 3)} → "
            f"${fmt(ours[-1], 3)} (x{fmt(ours[0] / ours[-1])} cheaper); case study: "
            f"${fmt(theirs[0], 3)} → ${fmt(theirs[-1], 3)} (x{fmt(theirs[0] / theirs[-1])}). Cost "
            f"follows RPS until the last step, where halving the machine halves the cost at the "
            f"same throughput. Next: `perflab capstone --usd-per-vcpu-hour 0.08` (your cloud's "
            f"price) or `--target-utilisation 0.8` (less headroom).")


def capstone_cpu(by, names, jvm_framework, beside):
    b, i = by[names[0]], by["index"]
    last = by[names[-1]]
    later = [by[n]["other_pct"] for n in names[names.index("index"):]]
    framework = ""
    if jvm_framework and beside:
        framework = (f"The framework slice (other_cpu_us: HTTP parsing, routing, the framework "
                     f"per request, and the cache lookup) is not measured by this calibration: "
                     f"it is the case study's JVM framework cost (Tomcat, routing, Spring), "
                     f"copied from seed-h2, beside this machine's measured C++ database, HTTP "
                     f"and serialisation costs, so from the index step on it is "
                     f"{fmt(min(later))}-{fmt(max(later))} % of the CPU: the JVM's framework "
                     f"against this machine's C++, not a cost perflab found. ")
    elif jvm_framework:
        framework = ("The framework slice is the case study's JVM framework cost (Tomcat, "
                     "routing, Spring), as seed-h2 derives it from its table. ")
    return (f"Each bar splits the application's CPU (the load generator's is left out) by what "
            f"burnt it. At the baseline the database takes {fmt(b['database_pct'])} % (a table "
            f"scan per order); the index drops it to {fmt(i['database_pct'])} % and the rest "
            f"appears: serialisation {fmt(i['serialisation_pct'])} %, GC {fmt(i['gc_pct'])} %, "
            f"the framework {fmt(i['other_pct'])} %. {framework}After the cache and the heap "
            f"change GC is "
            f"{fmt(last['gc_pct'])} % of the last step. Next: the largest slice of a step is the "
            f"first candidate, but check the sensitivity plot: CPU share is not throughput when the "
            f"bottleneck is a wait (a stub, a stall, a pool).")


def capstone_caps(rig, by, busy, names, full_pct):
    labels = ("threads", "pool", "cores")

    def full(n):
        caps_full = [lab for lab, v in zip(labels, busy[n]) if v is not None and v >= full_pct]
        return " + ".join(caps_full) if caps_full else "none"
    said = "; ".join(f"{n}: {full(n)}" for n in names)
    grew = [k for k in range(1, len(names)) if by[names[k]]["pool"] != by[names[k - 1]]["pool"]]
    pool_said = ""
    if grew:
        k = grew[0]
        a, b = by[names[k - 1]], by[names[k]]
        threads_said = ("" if a["threads"] == "virtual" else
                        f", against {fmt(a['thread_wait_ms'], 2)} ms of waiting for a request "
                        "thread")
        pool_said = (f"At {names[k]} the pool grows from {a['pool']:.0f} to {b['pool']:.0f} "
                     f"connections: it was {fmt(busy[names[k - 1]][1])} % busy with "
                     f"{fmt(a['pool_wait_ms'], 2)} ms of waiting per request{threads_said}; a "
                     f"bigger pool can only give back the pool's own wait. ")
    threads = by[names[0]]["threads"]
    return (f"Each request passes three caps in series: a request thread ({threads:.0f}, until "
            f"virtual threads), a database connection per statement (the pool) and the cores its CPU "
            f"runs on. A cap busy {full_pct} % of the time or more is full (dashed line: 100 %); "
            f"raising a cap that is not full gains nothing. Full caps per step: {said}. "
            f"Where none is full, the {rig.clients} clients' own round trips (or the load "
            f"generator) set the pace. "
            f"{pool_said}Next: `perflab sim order-service --set db_pool=8 ...` prints the same "
            f"caps with their waits for any one configuration.")


def capstone_sensitivity(top, names):
    first = {r["name"]: (r["first"], r["first_elasticity"]) for r in top}
    said = "; ".join(f"{n}: {first[n][0]} ({first[n][1]:+.2f})" for n in names)
    return (f"Each cell is the elasticity of RPS to one calibrated cost at that step: RPS is "
            f"rerun with the cost 10 % lower and 10 % higher, and -1 means RPS falls 1 % for each "
            f"1 % the cost grows (that cost is the whole bottleneck). The top cost per step: {said}. "
            f"A column that turns from red to white at the next step is the fix that step made. "
            f"When generator_cpu_per_request_us leads, the simulated load generator is the "
            f"bottleneck: give the rig more cores before trusting that step's RPS. "
            f"Each value comes from one pair of runs with one seed, so two close values may "
            f"trade places on another seed: `--sensitivity-seeds 3` reruns every pair with three "
            f"seeds and says which ranks stay apart. "
            f"Next: fix the boxed cost with the most negative value, and confirm with "
            f"`perflab capstone --calibration FILE --sensitivity` after editing that field.")


def capstone_mva(curves, clients, simulated_clients):
    def at(c, n):
        return next(r["throughput_per_s"] for r in c["rows"] if r["clients"] == n)

    parts, worst = [], []
    for c in curves:
        m = c["mva"]
        parts.append(f"{c['name']}: D = {fmt(m['total_demand_ms'], 2)} ms, 1 / D_max = "
                     f"{fmt(m['bound_rps'], 0)} req/s at the {m['bottleneck']}, knee N* = "
                     f"{fmt(m['knee_clients'])}; at {clients} clients MVA "
                     f"{fmt(at(c, clients), 0)} req/s against "
                     f"{fmt(c['simulated'][clients]['rps'], 0)} simulated")
        devs = [(abs(c["simulated"][n]["rps"] / at(c, n) - 1), n) for n in simulated_clients]
        d, n = max(devs)
        hit = c["simulated"][n]["cache_hit_ratio"]
        hit_rig = c["simulated"][clients]["cache_hit_ratio"]
        cache = (f" (cache hit ratio {fmt(hit, 3)} there, {fmt(hit_rig, 3)} at {clients})"
                 if hit_rig > 0 else "")
        worst.append(f"{c['name']} {fmt(100 * d)} % at N = {n}{cache}")
    return (f"Each panel is one step's closed loop as a closed queueing network, solved by exact "
            f"MVA (`perflab models mva`) with the demands the capstone's `mva` table derives from "
            f"that step's own {clients}-client run (D = busy / RPS at the load generator's cores, "
            f"the application's cores and the database pool, plus the inventory call's waits as "
            f"a delay). The dashed line N / D and the dotted 1 / D_max are the asymptotic bounds; "
            f"they cross at the knee N*. {'; '.join(parts)}. The points are "
            f"`perflab sim order-service` at N = {', '.join(str(n) for n in simulated_clients)}; "
            f"the largest gap to the curve: {'; '.join(worst)}. Away from {clients} clients the "
            f"demands are not the measured ones (fewer clients send fewer requests, so the cache "
            f"is colder), and the thread cap and the pool are passive resources held across the "
            f"stations, which no product-form network has, so the curve is an approximation and "
            f"1 / D_max a bound. The simulated points "
            f"need the model's own calibration, so this plot runs the capstone with "
            f"fixtures/calibration/seed-h2.json whatever the report's calibration is. Next: "
            f"`perflab sim order-service --set clients=32 --set threads=2` caps the request "
            f"threads below what the baseline's cores can serve: the point falls under the "
            f"curve, which has no thread cap (the capstone's MVA note names the steps where that "
            f"happens).")
