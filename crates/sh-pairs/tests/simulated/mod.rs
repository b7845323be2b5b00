//! What the map/reduce tests share: the input text with blank lines among the records, the
//! simulated shuffle (lines sorted as bytes, or by key only as Spark does), the cut of sorted
//! lines into reduce tasks at key boundaries, and the reading of the reduce's output.

// Each test file uses part of it.
#![allow(dead_code)]

use sh_core::progress::Progress;
use sh_core::RecordReader;
use sh_pairs::MapReduce;

/// The input text of `fps`, each spelled by `spell` (given its line number): with ids
/// `r<line>` or without, with `blanks` (line indexes) left empty, so that line numbers and
/// record numbers differ. Also the name of each record in the output: its id or line number.
pub fn input<T>(
    fps: &[T],
    named: bool,
    blanks: &[usize],
    spell: impl Fn(&T, usize) -> String,
) -> (String, Vec<String>) {
    let (mut text, mut names) = (String::new(), Vec::new());
    let mut fps = fps.iter();
    let mut line = 0;
    loop {
        line += 1;
        let blank = blanks.contains(&(line - 1));
        let fp = if blank { None } else { fps.next() };
        if !blank && fp.is_none() {
            break;
        }
        if named {
            text += &format!("r{line}\t");
        }
        if let Some(fp) = fp {
            text += &spell(fp, line);
            names.push(if named { format!("r{line}") } else { line.to_string() });
        }
        text += "\n";
    }
    (text, names)
}

/// The map lines of `text` from `tasks` map tasks: one task reads the text as it is; several
/// read consecutive parts of it with `LINE<TAB>` in front (--numbered), as Spark's driver gives
/// them. `job(numbered)` is the map step.
pub fn map_in_tasks(text: &str, tasks: usize, job: impl Fn(bool) -> MapReduce) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if tasks == 1 {
        job(false).map(&mut reader(text.as_bytes()), &mut out, &mut quiet()).unwrap();
    } else {
        let lines: Vec<&str> = text.lines().collect();
        let per_task = lines.len().div_ceil(tasks).max(1);
        for (t, part) in lines.chunks(per_task).enumerate() {
            let numbered: String = part
                .iter()
                .enumerate()
                .map(|(i, line)| format!("{}\t{line}\n", t * per_task + i + 1))
                .collect();
            job(true).map(&mut reader(numbered.as_bytes()), &mut out, &mut quiet()).unwrap();
        }
    }
    out.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

/// The output of the reduce step `job` on each task in turn.
pub fn reduce_each(tasks: &[Vec<u8>], job: &MapReduce) -> String {
    let mut out = Vec::new();
    for task in tasks {
        job.reduce(&mut reader(task), &mut out, &mut quiet()).unwrap();
    }
    String::from_utf8(out).unwrap()
}

pub fn reader(text: &[u8]) -> RecordReader {
    RecordReader::new(std::io::Cursor::new(text.to_vec()), "test".into())
}

pub fn quiet() -> Progress {
    Progress::new(true, "")
}

pub fn key(line: &[u8]) -> &[u8] {
    &line[..line.iter().position(|&b| b == b'\t').unwrap()]
}

/// The shuffle: whole lines sorted as bytes (`LC_ALL=C sort`), or, like Spark, by key only
/// with the lines of one key in some other order.
pub fn shuffle(mut lines: Vec<Vec<u8>>, by_key_only: bool) -> Vec<Vec<u8>> {
    if by_key_only {
        lines.reverse();
        lines.sort_by(|a, b| key(a).cmp(key(b)));
    } else {
        lines.sort();
    }
    lines
}

/// Cuts sorted lines into reduce tasks: each cut (a fraction of the lines) moves forward to the
/// next key boundary.
pub fn cut(lines: &[Vec<u8>], cuts: &[f64]) -> Vec<Vec<u8>> {
    let mut bounds: Vec<usize> = cuts
        .iter()
        .map(|&f| {
            let mut at = (f * lines.len() as f64) as usize;
            while at > 0 && at < lines.len() && key(&lines[at]) == key(&lines[at - 1]) {
                at += 1;
            }
            at.min(lines.len())
        })
        .collect();
    bounds.push(0);
    bounds.push(lines.len());
    bounds.sort_unstable();
    bounds.windows(2).map(|w| lines[w[0]..w[1]].concat()).collect()
}

pub fn sorted(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

/// `LINE_A<TAB>LINE_B<TAB>PAIR` lines sorted by (LINE_A, LINE_B), the line numbers dropped.
pub fn in_input_order(numbered: &str) -> String {
    let mut pairs: Vec<(u64, u64, &str)> = numbered
        .lines()
        .map(|line| {
            let mut f = line.splitn(3, '\t');
            let a = f.next().unwrap().parse().unwrap();
            let b = f.next().unwrap().parse().unwrap();
            (a, b, f.next().unwrap())
        })
        .collect();
    pairs.sort_unstable();
    assert!(pairs.windows(2).all(|w| (w[0].0, w[0].1) != (w[1].0, w[1].1)), "a pair twice");
    pairs.iter().map(|(_, _, pair)| format!("{pair}\n")).collect()
}
