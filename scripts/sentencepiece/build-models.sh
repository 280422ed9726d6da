#!/usr/bin/env bash
# Rebuilds the reference SentencePiece models in tests/fixtures/sentencepiece/ (how and why: the README there).
# Needs Debian's `sentencepiece` package (spm_train): apt-get install -y --no-install-recommends sentencepiece
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/fixtures/sentencepiece
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

npx jiti scripts/sentencepiece/write-corpus.ts 30000 >"$work/corpus.txt"

# name | extra spm_train flags (all: unigram, 2000 pieces, one thread so the result does not depend on scheduling)
models=(
  "unigram-nfkc|--normalization_rule_name=nmt_nfkc --byte_fallback=true"
  "unigram-identity|--normalization_rule_name=identity --byte_fallback=true"
  "unigram-identity-keep-spaces|--normalization_rule_name=identity --byte_fallback=true --remove_extra_whitespaces=false --user_defined_symbols=[pause],<br>,https://"
  "unigram-identity-suffix|--normalization_rule_name=identity --byte_fallback=true --treat_whitespace_as_suffix=true"
  "unigram-nfkc-unk-no-prefix|--normalization_rule_name=nmt_nfkc --byte_fallback=false --add_dummy_prefix=false --remove_extra_whitespaces=false"
)
for entry in "${models[@]}"; do
  name=${entry%%|*}
  # shellcheck disable=SC2086 # the flags are meant to split
  # Relative paths: the trainer spec stored in the model records them, so the bytes stay the same on every machine.
  (cd "$work" && spm_train --input=corpus.txt --model_prefix="$name" --model_type=unigram --vocab_size=2000 \
    --num_threads=1 --minloglevel=2 ${entry#*|})
  cp "$work/$name.model" "$out/$name.model"
  echo "$out/$name.model: $(stat -c %s "$out/$name.model") bytes"
done
spm_train --version 2>/dev/null || dpkg-query -W sentencepiece
