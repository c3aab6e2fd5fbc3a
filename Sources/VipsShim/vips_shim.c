#include "vips_shim.h"

#include <pthread.h>
#include <vips/vips.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_status = -1;

static void init_vips(void)
{
    /* libvips prints warnings about damaged input on stderr, which carries JSON log lines only;
       the refusal itself reaches the caller as an error. An explicit VIPS_WARNING setting wins. */
    g_setenv("VIPS_WARNING", "0", FALSE);
    if (VIPS_INIT("registrar"))
        return;
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_block_untrusted_set(TRUE);
    init_status = 0;
}

int vips_shim_init(void)
{
    pthread_once(&init_once, init_vips);
    return init_status;
}

/* Moves the process-wide libvips error text into `error` and clears it. */
static int fail(char *error, size_t error_size)
{
    char *text = vips_error_buffer_copy();
    if (error && error_size > 0)
        g_strlcpy(error, text && *text ? text : "unknown libvips error", error_size);
    g_free(text);
    return -1;
}

int vips_shim_find_loader(const void *buf, size_t len, char *loader, size_t loader_size)
{
    const char *type_name = vips_foreign_find_load_buffer(buf, len);
    const char *nickname = type_name ? vips_nickname_find(g_type_from_name(type_name)) : NULL;
    if (!nickname) {
        vips_error_clear();
        return -1;
    }
    g_strlcpy(loader, nickname, loader_size);
    return 0;
}

int vips_shim_read_header(const void *buf, size_t len, VipsShimHeader *header,
    char *error, size_t error_size)
{
    VipsImage *image = vips_image_new_from_buffer(buf, len, "",
        "access", VIPS_ACCESS_SEQUENTIAL,
        "fail_on", VIPS_FAIL_ON_ERROR,
        NULL);
    if (!image)
        return fail(error, error_size);
    header->width = vips_image_get_width(image);
    header->height = vips_image_get_height(image);
    header->pages = vips_image_get_n_pages(image);
    g_object_unref(image);
    return 0;
}

/* Encodes `image` as an sRGB 8-bit JPEG without alpha or metadata. */
static int encode_jpeg(VipsImage *image, int quality, VipsShimJPEG *jpeg,
    char *error, size_t error_size)
{
    VipsImage *scope = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(scope), 3);
    VipsImage *in = image;
    int status = -1;

    if (vips_colourspace(in, &t[0], VIPS_INTERPRETATION_sRGB, NULL))
        goto done;
    in = t[0];
    if (vips_image_hasalpha(in)) {
        VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
        int flattened = vips_flatten(in, &t[1], "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        if (flattened)
            goto done;
        in = t[1];
    }
    if (vips_cast_uchar(in, &t[2], NULL))
        goto done;
    in = t[2];
    if (vips_jpegsave_buffer(in, &jpeg->data, &jpeg->length,
            "Q", quality,
            "strip", TRUE,
            "optimize_coding", TRUE,
            NULL))
        goto done;
    jpeg->width = in->Xsize;
    jpeg->height = in->Ysize;
    status = 0;

done:
    g_object_unref(scope);
    return status ? fail(error, error_size) : 0;
}

/*
 * Whether `buf` embeds an ICC profile. Only then should vips_thumbnail() export to sRGB through
 * it: for images without one, an export would send sRGB pixels through lcms and shift saturated
 * colours, and CMYK without a profile is imported with a generic one anyway.
 */
static gboolean has_icc_profile(const void *buf, size_t len)
{
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) {
        vips_error_clear(); /* the thumbnail fails too and reports it */
        return FALSE;
    }
    gboolean found = vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
    g_object_unref(image);
    return found;
}

int vips_shim_thumbnail_jpeg(const void *buf, size_t len, int size, int quality,
    VipsShimJPEG *jpeg, char *error, size_t error_size)
{
    /* libvips 8.14 does not pass the "fail_on" argument of vips_thumbnail_buffer() on to the
     * loader, so it goes in the loader's option string. */
    VipsImage *thumbnail = NULL;
    if (vips_thumbnail_buffer((void *) buf, len, &thumbnail, size,
            "height", size,
            "size", VIPS_SIZE_DOWN,
            "crop", VIPS_INTERESTING_CENTRE,
            "export_profile", has_icc_profile(buf, len) ? "srgb" : NULL,
            "option_string", "fail_on=error",
            NULL))
        return fail(error, error_size);
    int status = encode_jpeg(thumbnail, quality, jpeg, error, error_size);
    g_object_unref(thumbnail);
    return status;
}

int vips_shim_circles_jpeg(int size, const double background[3], const double foreground[3],
    const VipsShimCircle *circles, int count, int quality,
    VipsShimJPEG *jpeg, char *error, size_t error_size)
{
    static const double one[3] = { 1.0, 1.0, 1.0 };
    VipsImage *scope = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(scope), 3);
    int status = -1;

    if (vips_black(&t[0], size, size, "bands", 3, NULL) ||
        vips_linear(t[0], &t[1], (double *) one, (double *) background, 3, "uchar", TRUE, NULL) ||
        !(t[2] = vips_image_copy_memory(t[1])))
        goto done;
    t[2]->Type = VIPS_INTERPRETATION_sRGB;
    for (int i = 0; i < count; i++)
        if (vips_draw_circle(t[2], (double *) foreground, 3,
                circles[i].x, circles[i].y, circles[i].radius,
                "fill", TRUE, NULL))
            goto done;
    status = encode_jpeg(t[2], quality, jpeg, error, error_size);
    g_object_unref(scope);
    return status;

done:
    g_object_unref(scope);
    return fail(error, error_size);
}

void vips_shim_jpeg_free(VipsShimJPEG *jpeg)
{
    g_free(jpeg->data);
    jpeg->data = NULL;
    jpeg->length = 0;
}
