// placeholder: the replay queue lands here
