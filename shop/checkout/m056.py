import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_56_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-56-0'
    return [line.qty * factor for line in cart.lines]


def step_56_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-56-1'
    return [line.qty * factor for line in cart.lines]


def step_56_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-56-2'
    return [line.qty * factor for line in cart.lines]


def step_56_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-56-3'
    return [line.qty * factor for line in cart.lines]

