// The HdrHistogramJS half of the interop test (see hdr_interop_main.cc):
//   node hdr_interop.js encode        prints HdrHistogramJS's encoding
//   node hdr_interop.js check BASE64  decodes ours and compares with its own
const hdr = require("hdr-histogram-js");

function values() {
  const h = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3600 * 1e9,
    numberOfSignificantValueDigits: 3,
    bitBucketSize: 64,
  });
  for (let i = 1; i <= 20000; i++) h.recordValue(1 + ((i * i * 7919) % 5e10));
  return h;
}

const [mode, arg] = process.argv.slice(2);
if (mode === "encode") {
  console.log(hdr.encodeIntoCompressedBase64(values()));
} else if (mode === "check") {
  const theirs = hdr.decodeFromCompressedBase64(arg, 64);
  const own = values();
  const problems = [];
  if (theirs.totalCount !== own.totalCount) {
    problems.push(`totalCount ${theirs.totalCount} != ${own.totalCount}`);
  }
  for (const p of [1, 10, 50, 90, 99, 99.9, 99.99, 100]) {
    const a = theirs.getValueAtPercentile(p);
    const b = own.getValueAtPercentile(p);
    if (a !== b) problems.push(`p${p}: decoded ${a} != own ${b}`);
  }
  if (problems.length) {
    console.error("HdrHistogramJS disagrees: " + problems.join("; "));
    process.exit(1);
  }
  console.log(`HdrHistogramJS decoded ours: ${theirs.totalCount} samples, ` +
              `p50 ${theirs.getValueAtPercentile(50)}, ` +
              `p99.9 ${theirs.getValueAtPercentile(99.9)}: equal to its own`);
} else {
  console.error("usage: node hdr_interop.js encode | check BASE64");
  process.exit(2);
}
