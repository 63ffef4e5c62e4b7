import gen.Book;
import gen.Library;
import gen.Person;
import gen.Shelf;
import gen.Tag;
import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import one.microstream.reference.Lazy;
import one.microstream.storage.types.EmbeddedStorage;
import one.microstream.storage.types.EmbeddedStorageManager;
import one.microstream.storage.types.Storage;
import one.microstream.storage.types.StorageChannelCountProvider;

/**
 * The SQL bench's two questions answered the way an application developer answers them: start
 * MicroStream 4.1's embedded storage on the directory (a copy: the library writes its lock file
 * into what it opens), take the root, walk shelves and their lazily loaded book lists, count.
 *
 * Usage: java -cp microstream-4.1.jar:generated-types-vN.jar:. LibraryQuestions STORAGE_DIR
 *
 * Prints on standard output, as `storage-inspector sql --format csv` prints the bench's statements:
 * books per tag (tag,books,total,average; by tag) and, after an empty line, the ten authors with
 * most books (author,name,books; most books first, then by object id). Standard error gets where
 * the time went (start with the root loaded, the walk).
 */
public final class LibraryQuestions {
    private LibraryQuestions() {
    }

    public static void main(final String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: LibraryQuestions STORAGE_DIR");
            System.exit(2);
        }
        final Path dir = Paths.get(args[0]);
        final long begin = System.nanoTime();
        // The storage's channel count is fixed when it is written; MicroStream must be told it.
        final EmbeddedStorageManager storage = EmbeddedStorage.start(Storage.ConfigurationBuilder()
                .setStorageFileProvider(Storage.FileProvider(dir))
                .setChannelCountProvider(StorageChannelCountProvider.New(channelCount(dir.toFile()))));
        try {
            final Library library = (Library) storage.root();
            final long started = System.nanoTime();

            final Map<Tag, long[]> booksPerTag = new EnumMap<>(Tag.class);
            final Map<Tag, BigDecimal> pricePerTag = new EnumMap<>(Tag.class);
            final Map<Person, long[]> booksPerAuthor = new IdentityHashMap<>();
            for (final Shelf shelf : library.shelves) {
                final List<Book> books = Lazy.get(shelf.books);
                for (final Book book : books) {
                    booksPerTag.computeIfAbsent(book.tag, t -> new long[1])[0]++;
                    pricePerTag.merge(book.tag, book.price, BigDecimal::add);
                    booksPerAuthor.computeIfAbsent(book.author, p -> new long[1])[0]++;
                }
            }
            final long walked = System.nanoTime();

            final StringBuilder out = new StringBuilder("tag,books,total,average\n");
            final List<Tag> tags = new ArrayList<>(booksPerTag.keySet());
            tags.sort((a, b) -> a.name().compareTo(b.name()));
            for (final Tag tag : tags) {
                final long count = booksPerTag.get(tag)[0];
                final BigDecimal total = pricePerTag.get(tag);
                final double average = total.divide(BigDecimal.valueOf(count), MathContext.DECIMAL128).doubleValue();
                out.append(csv(tag.name())).append(',').append(count).append(',')
                        .append(total.toPlainString()).append(',').append(average).append('\n');
            }

            out.append("\nauthor,name,books\n");
            final List<long[]> authors = new ArrayList<>(); // {object id, books}
            final List<String> names = new ArrayList<>();
            for (final Map.Entry<Person, long[]> e : booksPerAuthor.entrySet()) {
                final long objectId = storage.persistenceManager().objectRegistry().lookupObjectId(e.getKey());
                authors.add(new long[] {objectId, e.getValue()[0], names.size()});
                names.add(e.getKey().name);
            }
            authors.sort((a, b) -> a[1] != b[1] ? Long.compare(b[1], a[1]) : Long.compare(a[0], b[0]));
            for (final long[] author : authors.subList(0, Math.min(10, authors.size()))) {
                out.append(author[0]).append(',').append(csv(names.get((int) author[2]))).append(',').append(author[1]).append('\n');
            }
            // UTF-8 whatever the locale says (names are not ASCII)
            System.out.write(out.toString().getBytes(StandardCharsets.UTF_8));
            System.out.flush();
            System.err.printf("started (root loaded) in %.1f s, walked and counted in %.1f s%n",
                    (started - begin) / 1e9, (walked - started) / 1e9);
        } finally {
            storage.shutdown();
        }
    }

    private static int channelCount(final File dir) {
        final File[] channels = dir.listFiles(f -> f.isDirectory() && f.getName().matches("channel_\\d+"));
        if (channels == null || channels.length == 0) {
            throw new IllegalArgumentException(dir + ": no channel_N directory, not a storage");
        }
        return channels.length;
    }

    /** A CSV field: quoted when it holds a comma, a quote or a line break (quotes doubled). */
    private static String csv(final String value) {
        if (value == null) {
            return "";
        }
        if (value.indexOf(',') < 0 && value.indexOf('"') < 0 && value.indexOf('\n') < 0 && value.indexOf('\r') < 0) {
            return value;
        }
        return '"' + value.replace("\"", "\"\"") + '"';
    }
}
