/**
 * A growing list of numbers in a Float64Array: the generator keeps one entry per book or person
 * (object id offsets, indices), so no JS array of numbers or object per entity.
 */
export class NumberList {
  private data = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  get(index: number): number {
    return this.data[index]!;
  }

  set(index: number, value: number): void {
    this.data[index] = value;
  }
}
