/*
 * vips_shim: non-variadic entry points into libvips for Swift.
 *
 * The libvips C API takes optional arguments as NULL-terminated varargs, which Swift cannot call.
 * These functions fix the arguments; the policy (limits, formats, sizes) lives in the Imaging module.
 *
 * Error text: libvips keeps one error buffer per process. Each failing function copies and clears
 * it into the caller's `error` buffer, so with concurrent calls a message may be missing or belong to
 * another call. Treat it as diagnostic text only; the return values alone say what failed.
 */
#ifndef VIPS_SHIM_H
#define VIPS_SHIM_H

#include <stddef.h>

/* Facts from an image header, read without decoding pixels. */
typedef struct VipsShimHeader {
    int width;
    int height;
    /* Frames or pages in the file; 1 for a still image. */
    int pages;
} VipsShimHeader;

/* A JPEG encoded by libvips; release with vips_shim_jpeg_free(). */
typedef struct VipsShimJPEG {
    void *data;
    size_t length;
    int width;
    int height;
} VipsShimJPEG;

/* A filled circle, in pixels. */
typedef struct VipsShimCircle {
    int x;
    int y;
    int radius;
} VipsShimCircle;

/*
 * Starts libvips once per process (later calls return the first result): one worker thread per
 * pipeline, no operation cache, and loaders libvips marks untrusted (ImageMagick, SVG, PDF, ...)
 * blocked. Thread-safe. Returns 0 on success.
 */
int vips_shim_init(void);

/*
 * Names the loader that recognises `buf` by its magic bytes, e.g. "jpegload_buffer", into `loader`.
 * Returns 0, or -1 if no (unblocked) loader recognises it.
 */
int vips_shim_find_loader(const void *buf, size_t len, char *loader, size_t loader_size);

/*
 * Reads the image header of `buf`, failing on errors or truncation in the header.
 * Returns 0, or -1 with text in `error`.
 */
int vips_shim_read_header(const void *buf, size_t len, VipsShimHeader *header,
    char *error, size_t error_size);

/*
 * Decodes `buf` (first frame/page only, shrinking on load where the format allows), rotates it
 * upright by its EXIF orientation, converts it to sRGB (through its ICC profile if it has one, or
 * a generic CMYK profile for CMYK), scales it down until its shorter side is `size` (never up),
 * crops the centred `size`×`size` square (or less if the image is smaller), flattens any alpha on
 * white and encodes a JPEG without any metadata (no EXIF, XMP, IPTC or ICC).
 * Truncated or corrupt input fails. Returns 0, or -1 with text in `error`.
 */
int vips_shim_thumbnail_jpeg(const void *buf, size_t len, int size, int quality,
    VipsShimJPEG *jpeg, char *error, size_t error_size);

/*
 * Draws `count` filled circles in `foreground` (sRGB 0-255) on a `size`×`size` square of
 * `background` and encodes it as a JPEG without metadata. Returns 0, or -1 with text in `error`.
 */
int vips_shim_circles_jpeg(int size, const double background[3], const double foreground[3],
    const VipsShimCircle *circles, int count, int quality,
    VipsShimJPEG *jpeg, char *error, size_t error_size);

/* Frees the data of a JPEG returned by this shim; safe on a zeroed struct. */
void vips_shim_jpeg_free(VipsShimJPEG *jpeg);

#endif
