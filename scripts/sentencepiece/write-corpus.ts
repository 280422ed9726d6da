/**
 * Writes the training corpus of the reference SentencePiece models to stdout: one varied sample per line from the
 * same seeded generator the comparison test uses (seed 1 here, seed 2 in the test). Run by build-models.sh.
 */
import { variedStrings } from '../../tests/fixtures/sentencepiece/varied-text';

const lines = Number(process.argv[2] ?? 30000);
process.stdout.write(variedStrings(1, lines, { singleLine: true }).join('\n') + '\n');
