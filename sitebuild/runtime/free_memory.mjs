// Zeroes the insides of the free chunks of Pyodide's heap before its memory snapshot is taken.
//
// Pyodide's Python allocates with Emscripten's dlmalloc (no pymalloc), and a chunk that is freed
// keeps what it held: the start-up's and the model's garbage (3.2 MB is free after Pyodide starts,
// about 1-2 MB when the session is open) went into every snapshot as bytes gzip cannot squeeze.
// Zeroed, they cost next to nothing. dlmalloc reads nothing in a free chunk past its links (calloc
// clears what it hands out), so only the bytes past them are zeroed.
//
// dlmalloc's chunks lie end to end from the heap's base to the break (sbrk): each starts with the
// previous chunk's size (valid when that one is free) and its own head (size | C-in-use 2 |
// P-in-use 1); a free chunk holds its bin links (fd, bk; from 256 bytes on also two children, the
// parent and the bin's index: 24 bytes past the head) and its size again at its end, which is the
// next chunk's first word. The top chunk is followed by a fake chunk of its own size's head only,
// ending at the break. The walk checks that every chunk fits and that the heap ends where the break
// is; a heap laid out any other way (another allocator, a new Pyodide) fails the build instead of
// being written over.
const HEAD = 4; // the head's offset in a chunk
const SMALL_LINKS = 16; // prev_foot, head, fd, bk
const TREE_LINKS = 32; // and child[0], child[1], parent, index
const MIN_LARGE_SIZE = 256;

export function zeroFreeChunks(module) {
  const words = module.HEAPU32;
  const start = module.___heap_base;
  const end = words[module._emscripten_get_sbrk_ptr() >> 2];
  if (!Number.isInteger(start) || !Number.isInteger(end) || start % 8 || end <= start) {
    throw new Error(`the heap to clear is not dlmalloc's: base ${start}, break ${end}`);
  }
  let chunk = start;
  let chunks = 0;
  let free = 0;
  let zeroed = 0;
  while (chunk !== end) {
    const head = words[(chunk + HEAD) >> 2];
    const size = head & ~7;
    const next = chunk + size;
    if (size < 16 || next > end) {
      throw new Error(`the heap to clear is not dlmalloc's: chunk at ${chunk} of ${size} bytes, the break at ${end}`);
    }
    if (next === end) { // the fake chunk after the top: its head is its size, nothing else
      if (head !== size) throw new Error(`the heap to clear does not end with dlmalloc's top (head ${head} at ${chunk})`);
      break;
    }
    if (!(head & 2)) {
      if (words[(next + HEAD) >> 2] & 1) throw new Error(`the heap to clear has a free chunk at ${chunk} that its next chunk calls in use`);
      const links = size >= MIN_LARGE_SIZE ? TREE_LINKS : SMALL_LINKS;
      if (size > links) {
        module.HEAPU8.fill(0, chunk + links, next);
        zeroed += size - links;
      }
      free += size;
    }
    chunks += 1;
    chunk = next;
  }
  return { heap: end - start, chunks, free, zeroed };
}
