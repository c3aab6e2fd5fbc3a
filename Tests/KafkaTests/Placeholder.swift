// placeholder: removed when the module lands
