// placeholder: replaced when the executable lands
