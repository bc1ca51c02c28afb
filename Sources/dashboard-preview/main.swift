print("preview")
